import type { ToolSnapshot } from '#mcp';

export interface ToolDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** JSON with object keys sorted, so a server that reorders keys does not look changed. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

/** Tool names added, removed, and changed (title, description, schemas, annotations, usability), each sorted. */
export function diffTools(before: ToolSnapshot[], after: ToolSnapshot[]): ToolDiff {
  const old = new Map(before.map((tool) => [tool.name, canonical(tool)]));
  const now = new Map(after.map((tool) => [tool.name, canonical(tool)]));
  const sorted = (names: string[]) => names.sort();
  return {
    added: sorted([...now.keys()].filter((name) => !old.has(name))),
    removed: sorted([...old.keys()].filter((name) => !now.has(name))),
    changed: sorted([...now.entries()].filter(([name, json]) => old.has(name) && old.get(name) !== json).map(([name]) => name)),
  };
}
