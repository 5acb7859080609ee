import { describe, expect, it } from '@jest/globals';
import { cleanToolSchema } from './clean-schema.js';

describe('cleanToolSchema', () => {
  it('adds items to arrays that have none, at any depth', () => {
    const cleaned = cleanToolSchema({
      type: 'object',
      properties: {
        tags: { type: 'array' },
        nested: { type: 'object', properties: { list: { type: ['array', 'null'] } } },
        either: { anyOf: [{ type: 'array' }, { type: 'string' }] },
        typed: { type: 'array', items: { type: 'number' } },
      },
    });
    expect(cleaned.properties).toEqual({
      tags: { type: 'array', items: {} },
      nested: { type: 'object', properties: { list: { type: ['array', 'null'], items: {} } } },
      either: { anyOf: [{ type: 'array', items: {} }, { type: 'string' }] },
      typed: { type: 'array', items: { type: 'number' } },
    });
  });

  it('drops $schema/$id/$comment, keeps $ref and $defs', () => {
    const cleaned = cleanToolSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      $id: 'urn:x',
      type: 'object',
      properties: { a: { $ref: '#/$defs/A', $comment: 'x' } },
      $defs: { A: { type: 'array', $schema: 'x' } },
    });
    expect(cleaned).toEqual({ type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { type: 'array', items: {} } } });
  });

  it('turns boolean sub-schemas into objects, keeps additionalProperties: false', () => {
    const cleaned = cleanToolSchema({ type: 'object', properties: { any: true, none: false }, additionalProperties: false });
    expect(cleaned).toEqual({ type: 'object', properties: { any: {}, none: { not: {} } }, additionalProperties: false });
  });

  it('always yields an object schema with properties at the root', () => {
    expect(cleanToolSchema(undefined)).toEqual({ type: 'object', properties: {} });
    expect(cleanToolSchema(true)).toEqual({ type: 'object', properties: {} });
    expect(cleanToolSchema({ type: 'object' })).toEqual({ type: 'object', properties: {} });
    expect(cleanToolSchema({ type: 'string' })).toEqual({ type: 'object', properties: {} });
  });

  it('leaves its input untouched', () => {
    const schema = { type: 'object', properties: { tags: { type: 'array' } } };
    const before = JSON.stringify(schema);
    cleanToolSchema(schema);
    expect(JSON.stringify(schema)).toBe(before);
  });
});
