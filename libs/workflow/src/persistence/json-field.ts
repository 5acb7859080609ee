/**
 * User-shaped JSON (workflow definitions, run inputs, node inputs/outputs) is stored as a JSON
 * string, not as a nested document: tool outputs and JSON Schemas routinely hold keys with `.`
 * or a leading `$` (`$schema`, `$ref`) and nested arrays, which FerretDB v1 rejects and which
 * MongoDB handles only partly. A string round-trips any JSON value unchanged, on both.
 */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export function fromJsonText<T>(text: string | null | undefined, fallback: T): T {
  if (typeof text !== 'string' || text === '') return fallback;
  return JSON.parse(text) as T;
}
