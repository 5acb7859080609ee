import type { JsonSchema } from '../engine/types.js';

/** JSON Schema (2020-12) of a value source: a literal, a reference or a template (for `describeType` config schemas). */
export const VALUE_SOURCE_SCHEMA: JsonSchema = {
  oneOf: [
    { type: 'object', properties: { value: {} }, required: ['value'], additionalProperties: false },
    { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'], additionalProperties: false },
    { type: 'object', properties: { template: { type: 'string' } }, required: ['template'], additionalProperties: false },
  ],
};

/** The config schema of a type whose config is empty. */
export const NO_CONFIG_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false };

/** What `llm` and `agent` share in their config schema. */
export const MODEL_CONFIG_PROPERTIES: Record<string, JsonSchema> = {
  providerId: { type: 'string', minLength: 1, description: 'a provider id (POST /providers)' },
  model: { type: 'string', minLength: 1, description: 'the model name the provider serves' },
  temperature: { type: 'number', minimum: 0, maximum: 2 },
  maxTokens: { type: 'integer', minimum: 1 },
};
