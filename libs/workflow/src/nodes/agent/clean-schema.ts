import type { JsonSchema } from '../../engine/types.js';

/**
 * A tool's inputSchema made acceptable as function `parameters` for OpenAI-compatible providers,
 * which reject some valid JSON Schema: an array without `items`, a root that is not an object
 * schema, boolean sub-schemas, `$schema`/`$id` keywords. Meaning is kept: `true` becomes `{}`
 * (anything), `false` becomes `{not: {}}` (nothing), a missing `items` becomes `{}`. The input
 * is never mutated.
 */
const DROPPED_KEYWORDS = new Set(['$schema', '$id', '$comment']);
const SCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_KEYWORDS = [
  'items',
  'additionalProperties',
  'additionalItems',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
];
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function cleanSubschema(schema: unknown): unknown {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  if (!isRecord(schema)) return schema;
  const cleaned: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(keyword)) continue;
    if (SCHEMA_MAP_KEYWORDS.includes(keyword) && isRecord(value)) {
      cleaned[keyword] = Object.fromEntries(Object.entries(value).map(([key, sub]) => [key, cleanSubschema(sub)]));
    } else if (SCHEMA_KEYWORDS.includes(keyword)) {
      // `additionalProperties: false` is a meaningful boolean providers accept; keep booleans there.
      cleaned[keyword] = keyword === 'additionalProperties' && typeof value === 'boolean' ? value : cleanSubschema(value);
    } else if (SCHEMA_LIST_KEYWORDS.includes(keyword) && Array.isArray(value)) {
      cleaned[keyword] = value.map(cleanSubschema);
    } else {
      cleaned[keyword] = value;
    }
  }
  const types = Array.isArray(cleaned.type) ? cleaned.type : [cleaned.type];
  if (types.includes('array') && cleaned.items === undefined && cleaned.prefixItems === undefined) cleaned.items = {};
  return cleaned;
}

export function cleanToolSchema(schema: JsonSchema | undefined): Record<string, unknown> {
  const cleaned = cleanSubschema(schema ?? {});
  const root = isRecord(cleaned) ? cleaned : {};
  if (root.type !== undefined && root.type !== 'object') {
    // Not an object schema at the root (rare, but seen): providers insist on one; accept anything.
    return { type: 'object', properties: {} };
  }
  return { ...root, type: 'object', properties: isRecord(root.properties) ? root.properties : {} };
}
