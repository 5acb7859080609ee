/**
 * The `pick` paths of a `set` field: a small, JSONPath-like subset over the engine's own path
 * reading (`references.ts`). Segments are `name`, `[n]` (index), `[-n]` (from the end) and
 * `[*]` / `*` (every element of an array: the rest of the path is read from each; a `*`
 * inside gives an array per element, not a flattened list). An optional leading `$` or `$.` is accepted.
 */
import { readPath } from '../../engine/references.js';

export type PickSegment = { kind: 'key'; name: string } | { kind: 'index'; index: number } | { kind: 'all' };

const SEGMENT = /^(?:\.?([A-Za-z_$][\w$-]*|\*)|\[(-?\d+|\*)\])/;

/** The parsed path, or a message saying where it stops making sense. */
export function parsePickPath(text: string): { segments: PickSegment[] } | { error: string } {
  let rest = text.trim().replace(/^\$\.?/, '');
  const segments: PickSegment[] = [];
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    if (!match || (segments.length === 0 && rest.startsWith('.'))) {
      return { error: `cannot read "${rest}" (segments are name, [n], [-n], [*])` };
    }
    const token = match[1] ?? match[2];
    if (token === '*') segments.push({ kind: 'all' });
    else if (match[2] !== undefined) segments.push({ kind: 'index', index: Number(token) });
    else segments.push({ kind: 'key', name: token });
    rest = rest.slice(match[0].length);
  }
  return { segments };
}

/** Reads a parsed path; anything missing on the way reads as `undefined` (as references do). */
export function readPick(root: unknown, segments: readonly PickSegment[]): unknown {
  let current = root;
  for (const [position, segment] of segments.entries()) {
    if (segment.kind === 'all') {
      if (!Array.isArray(current)) return undefined;
      const rest = segments.slice(position + 1);
      return current.map((item) => readPick(item, rest)).filter((item) => item !== undefined);
    }
    if (segment.kind === 'index') {
      if (!Array.isArray(current)) return undefined;
      current = current[segment.index < 0 ? current.length + segment.index : segment.index];
    } else {
      current = readPath(current, [segment.name]);
    }
  }
  return current;
}
