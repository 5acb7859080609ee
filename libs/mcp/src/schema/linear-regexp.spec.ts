import { describe, expect, it } from '@jest/globals';
import { compileSchema } from './dialect-validator.js';

describe('schema patterns run on a linear-time engine', () => {
  it('answers a catastrophic-backtracking pattern at once instead of blocking the event loop', () => {
    const compiled = compileSchema({ type: 'object', properties: { word: { type: 'string', pattern: '^(a+)+$' } } });
    if (!compiled.ok) throw new Error(compiled.reason);
    // 40 characters: a backtracking engine needs ~2^40 steps (hours) for this one.
    expect(compiled.validate({ word: `${'a'.repeat(40)}!` })).toEqual([expect.objectContaining({ path: 'word' })]);
    expect(compiled.validate({ word: 'aaaa' })).toEqual([]);
  });

  it('applies to patternProperties and keeps ordinary ECMAScript syntax working', () => {
    const compiled = compileSchema({
      type: 'object',
      patternProperties: { '^x-\\w+$': { type: 'string', pattern: '^\\d{3}-\\u00e9$' } },
      additionalProperties: false,
    });
    if (!compiled.ok) throw new Error(compiled.reason);
    expect(compiled.validate({ 'x-a': '123-é' })).toEqual([]);
    expect(compiled.validate({ 'x-a': '12-é' })).toHaveLength(1);
    expect(compiled.validate({ y: 'z' })).toHaveLength(1);
  });

  it('refuses patterns the engine cannot run (lookarounds, backreferences) with their path', () => {
    const lookahead = compileSchema({ type: 'object', properties: { a: { type: 'string', pattern: '^(?=x)x$' } } });
    expect(lookahead).toMatchObject({ ok: false, path: '/properties/a/pattern' });
    const backreference = compileSchema({ patternProperties: { '(a)\\1': {} } });
    expect(backreference).toMatchObject({ ok: false, path: '/patternProperties/(a)\\1' });
    expect(compileSchema({ const: { pattern: '(?=data, not a keyword)' } }).ok).toBe(true);
  });
});
