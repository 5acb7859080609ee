import { validateArguments } from '#mcp';
import type { JsonSchema } from '#workflow';
import { withInputDefaults } from '#workflow/nest';
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

/** Top-level defaults of the input schema, filled in where the caller left a key out (shared with the workers' schedule firings). */
export const withDefaults = withInputDefaults;

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
