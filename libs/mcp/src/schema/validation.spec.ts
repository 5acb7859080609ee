import { describe, expect, it } from '@jest/globals';
import { compileSchema, dialectOf } from './dialect-validator.js';
import { validateArguments } from './validate-arguments.js';

const draft07Tuple = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'array',
  items: [{ type: 'string' }, { type: 'number' }],
  additionalItems: false,
};

describe('dialect-aware validation', () => {
  it('picks the Ajv dialect from $schema; none means 2020-12', () => {
    expect(dialectOf({})).toBe('2020-12');
    expect(dialectOf(true)).toBe('2020-12');
    expect(dialectOf({ $schema: 'https://json-schema.org/draft-07/schema' })).toBe('draft-07');
    expect(dialectOf({ $schema: 'http://json-schema.org/draft-04/schema#' })).toBe('draft-07');
    expect(dialectOf({ $schema: 'https://json-schema.org/draft/2019-09/schema' })).toBe('2019-09');
    expect(dialectOf({ $schema: 'https://json-schema.org/draft/2020-12/schema' })).toBe('2020-12');
  });

  it('reads a draft-07 tuple as draft-07, while the same keywords are invalid under 2020-12', () => {
    expect(validateArguments(draft07Tuple, ['a', 1])).toEqual({ ok: true });
    expect(validateArguments(draft07Tuple, ['a', 1, 2])).toEqual({
      ok: false,
      errors: [{ path: '', message: 'must NOT have more than 2 items' }],
    });
    const { $schema: _ignored, ...as2020 } = draft07Tuple;
    const compiled = compileSchema(as2020);
    expect(compiled).toMatchObject({ ok: false, dialect: '2020-12' });
  });

  it('reads 2020-12 prefixItems when no $schema is given', () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    expect(validateArguments(tuple, ['a']).ok).toBe(true);
    expect(validateArguments(tuple, [1])).toEqual({ ok: false, errors: [{ path: '[0]', message: 'must be string' }] });
  });

  it('reports every problem with its exact path, including missing and extra properties', () => {
    const schema = {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, 'odd key': { enum: ['x', 'y'] } }, required: ['name'] },
        },
        email: { type: 'string', format: 'email' },
      },
      required: ['items'],
      additionalProperties: false,
    };
    const result = validateArguments(schema, { items: [{ name: 'ok' }, { name: 3, 'odd key': 'z' }, {}], email: 'nope', extra: 1 });
    expect(result).toEqual({
      ok: false,
      errors: expect.arrayContaining([
        { path: 'extra', message: 'must NOT have additional properties' },
        { path: 'items[1].name', message: 'must be string' },
        { path: 'items[1]["odd key"]', message: 'must be equal to one of the allowed values: "x", "y"' },
        { path: 'items[2].name', message: "must have required property 'name'" },
        { path: 'email', message: 'must match format "email"' },
      ]),
    });
    expect(result.ok ? 0 : result.errors.length).toBe(5);
  });

  it('never fetches: a remote $ref is a compile failure with its reason', () => {
    const compiled = compileSchema({ type: 'object', properties: { c: { $ref: 'https://schemas.example.invalid/c.json' } } });
    expect(compiled.ok).toBe(false);
    expect(compiled.ok ? '' : compiled.reason).toContain("can't resolve reference https://schemas.example.invalid/c.json");
  });

  it('compiles two schemas with the same $id independently', () => {
    const a = { $id: 'https://tools.example/input.json', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const b = { $id: 'https://tools.example/input.json', type: 'object', properties: { b: { type: 'number' } }, required: ['b'] };
    expect(validateArguments(a, { a: 'x' }).ok).toBe(true);
    expect(validateArguments(b, { b: 1 }).ok).toBe(true);
    expect(validateArguments(b, { a: 'x' }).ok).toBe(false);
  });

  it('turns an uncompilable schema into an argument error rather than a throw', () => {
    expect(validateArguments({ type: 'nonsense' }, {})).toEqual({
      ok: false,
      errors: [{ path: '', message: expect.stringContaining('cannot be compiled') }],
    });
  });
});
