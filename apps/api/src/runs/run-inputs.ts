import { validateArguments } from '#mcp';
import type { JsonSchema } from '#workflow';
import type { ProblemDetail } from '../common/api-errors.js';
import { pointer } from '../common/zod-validation.js';

/** `items[0].name` / `a["odd key"]` (libs/mcp's dotted paths) → segments. */
function segmentsOf(dotted: string): string[] {
  const segments: string[] = [];
  const pattern = /([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const match of dotted.matchAll(pattern)) {
    segments.push(match[1] ?? match[2] ?? (JSON.parse(match[3]) as string));
  }
  return segments;
}

/** Top-level defaults of the input schema, filled in where the caller left a key out. */
export function withDefaults(schema: JsonSchema | undefined, inputs: Record<string, unknown>): Record<string, unknown> {
  const properties = typeof schema === 'object' ? schema.properties : undefined;
  if (typeof properties !== 'object' || properties === null) return inputs;
  const filled = { ...inputs };
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    const fallback = (property as { default?: unknown } | null)?.default;
    if (!Object.hasOwn(filled, key) && fallback !== undefined) filled[key] = structuredClone(fallback);
  }
  return filled;
}

/** Every problem of run inputs against the workflow's `inputSchema`, as `/inputs/…` pointers (or under another `root`). */
export function runInputProblems(schema: JsonSchema | undefined, inputs: Record<string, unknown>, root = 'inputs'): ProblemDetail[] {
  if (schema === undefined) return [];
  const result = validateArguments(schema, inputs);
  if (result.ok) return [];
  return result.errors.map((error) => ({
    path: pointer([root, ...segmentsOf(error.path)]),
    code: 'INPUT_INVALID',
    message: error.message,
  }));
}
