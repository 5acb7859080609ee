import { describe, expect, it } from '@jest/globals';
import { trickySchemaTools } from '../testing/fixture-tools.js';
import type { TypedField } from '../types.js';
import { schemaToFields } from './fields.js';
import { validateArguments } from './validate-arguments.js';

const inputOf = (name: string) => trickySchemaTools().find((t) => t.name === name)!.inputSchema;
const byKey = (fields: TypedField[]) => Object.fromEntries(fields.map((f) => [f.key, f]));

describe('schemaToFields', () => {
  const fields = byKey(schemaToFields(inputOf('refs_2020')));

  it('types every top-level property, degrading unions to the nearest honest type', () => {
    expect(Object.fromEntries(Object.values(fields).map((f) => [f.key, f.valueType]))).toEqual({
      address: 'object',
      addresses: 'array<object>',
      nickname: 'string',
      count: 'integer',
      mode: 'string',
      idOrName: 'any',
      ratio: 'number',
      tag: 'string',
      email: 'string',
      pair: 'array<any>',
      matrix: 'array<array<number>>',
      anything: 'any',
    });
  });

  it('keeps required flags, labels, descriptions, enums and defaults', () => {
    expect(fields.address).toMatchObject({ required: true, label: 'address', description: 'Where to deliver' });
    expect(fields.mode).toMatchObject({ required: true, enum: ['fast', 'safe'] });
    expect(fields.count).toMatchObject({ required: false, label: 'How many', default: 1 });
    expect(fields.nickname.default).toBeNull();
    expect(fields.tag.enum).toEqual(['red', 'green']);
    expect(fields.email.enum).toBeUndefined();
  });

  it('gives each field a self-contained schema that still resolves its $refs', () => {
    expect(validateArguments(fields.addresses.schema, [{ street: 'Main St' }])).toEqual({ ok: true });
    const invalid = validateArguments(fields.addresses.schema, [{ city: 'Paris' }]);
    expect(invalid).toEqual({ ok: false, errors: [{ path: '[0].street', message: "must have required property 'street'" }] });
    expect(fields.count.schema).toEqual({ type: 'integer', minimum: 0, default: 1, title: 'How many' });
  });

  it('reads draft-07 definitions and carries the dialect into field schemas', () => {
    const draft07 = byKey(schemaToFields(inputOf('legacy_draft07')));
    expect(draft07.point).toMatchObject({ valueType: 'object', required: true });
    expect(draft07.pair.valueType).toBe('array<any>');
    expect((draft07.pair.schema as Record<string, unknown>).$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(validateArguments(draft07.pair.schema, ['a', 1]).ok).toBe(true);
    expect(validateArguments(draft07.pair.schema, ['a', 'b']).ok).toBe(false);
  });

  it('merges allOf members and resolves a root $ref', () => {
    const schema = {
      $defs: { Base: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      allOf: [{ $ref: '#/$defs/Base' }, { properties: { tags: { type: 'array', items: { type: 'string' } } } }],
    };
    expect(schemaToFields(schema).map((f) => [f.key, f.valueType, f.required])).toEqual([
      ['id', 'string', true],
      ['tags', 'array<string>', false],
    ]);
    expect(schemaToFields({ $ref: '#/$defs/Base', $defs: schema.$defs }).map((f) => f.key)).toEqual(['id']);
  });

  it('degrades what it cannot follow to any instead of failing', () => {
    const schema = {
      type: 'object',
      $defs: {
        Loop: { $ref: '#/$defs/Loop' },
        Tree: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Tree' } } } },
      },
      properties: {
        remote: { $ref: 'https://example.invalid/x.json' },
        loop: { $ref: '#/$defs/Loop' },
        tree: { $ref: '#/$defs/Tree' },
        flag: true,
        mixed: { type: ['string', 'number'] },
        arrays: {
          oneOf: [
            { type: 'array', items: { type: 'string' } },
            { type: 'array', items: { type: 'number' } },
          ],
        },
        inferred: { enum: [1, 2.5, null] },
      },
    };
    expect(Object.fromEntries(schemaToFields(schema).map((f) => [f.key, f.valueType]))).toEqual({
      remote: 'any',
      loop: 'any',
      tree: 'object',
      flag: 'any',
      mixed: 'any',
      arrays: 'array<any>',
      inferred: 'number',
    });
    expect(schemaToFields(true)).toEqual([]);
  });
});
