import type { JsonSchema } from '../types.js';
import { schemaToFields } from './fields.js';

/**
 * The `default` of each top-level property that declares one (SEP-1034: a client that accepts an
 * elicitation with defaults fills in what the user left out from them).
 */
export function defaultsOf(schema: JsonSchema): Record<string, unknown> {
  return Object.fromEntries(schemaToFields(schema).flatMap((field) => ('default' in field ? [[field.key, field.default]] : [])));
}
