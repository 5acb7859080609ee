import type { ArgumentError } from '../errors.js';
import type { JsonSchema } from '../types.js';
import { compileSchema } from './dialect-validator.js';

export type ArgumentValidation = { ok: true } | { ok: false; errors: ArgumentError[] };

/** Checks tool arguments (or any value) against a schema in its own dialect; every problem, with its path. */
export function validateArguments(schema: JsonSchema, args: unknown): ArgumentValidation {
  const compiled = compileSchema(schema);
  if (!compiled.ok) return { ok: false, errors: [{ path: '', message: `the schema cannot be compiled: ${compiled.reason}` }] };
  const errors = compiled.validate(args);
  return errors.length === 0 ? { ok: true } : { ok: false, errors };
}
