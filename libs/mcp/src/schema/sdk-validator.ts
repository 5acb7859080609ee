import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { compileSchema } from './dialect-validator.js';

/**
 * Our dialect-aware validator behind the SDK's validator interface. Handed to every SDK Client
 * so none builds its own Ajv (costly per connection) and none throws on one bad output schema.
 */
export const sdkSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const compiled = compileSchema(schema as Record<string, unknown>);
    return (input) => {
      if (!compiled.ok) return { valid: false, data: undefined, errorMessage: `schema cannot be compiled: ${compiled.reason}` };
      const errors = compiled.validate(input);
      if (errors.length === 0) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ') };
    };
  },
};
