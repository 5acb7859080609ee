import type { JsonSchema } from '../../engine/types.js';

/**
 * Tool arguments as they may be logged. The model writes the arguments, so a secret there came
 * from the prompt or a tool result; either way it has no business in run logs. Redacted: values
 * under names that say credential (`apiKey`, `github_token`, `password`…, but not `maxTokens`),
 * at any depth, and top-level arguments the tool's schema marks secret (`writeOnly`,
 * `format: "password"`). Only the logged copy is redacted; the tool receives the real value.
 */
export const REDACTED = '***';

const SECRET_NAME =
  /(password|passphrase|passwd|secret|token|api[-_]?key|authorization|credentials?|cookie|private[-_]?key|access[-_]?key)$/i;
const MAX_DEPTH = 20;

function scrub(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_NAME.test(key) ? REDACTED : scrub(item, depth + 1)]));
}

function secretProperties(schema: JsonSchema | undefined): string[] {
  const properties = typeof schema === 'object' ? schema.properties : undefined;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, { writeOnly?: unknown; format?: unknown } | null>)
    .filter(([, property]) => property?.writeOnly === true || property?.format === 'password')
    .map(([key]) => key);
}

export function redactArguments(args: Record<string, unknown>, schema?: JsonSchema): Record<string, unknown> {
  const redacted = scrub(args, 0) as Record<string, unknown>;
  for (const key of secretProperties(schema)) if (Object.hasOwn(redacted, key)) redacted[key] = REDACTED;
  return redacted;
}
