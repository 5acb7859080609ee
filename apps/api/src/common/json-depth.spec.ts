import { describe, expect, it } from '@jest/globals';
import { jsonDepthOf } from './json-depth.js';

const depth = (text: string) => jsonDepthOf(Buffer.from(text));

describe('jsonDepthOf', () => {
  it('counts nested objects and arrays, not brackets inside strings', () => {
    expect(depth('1')).toBe(0);
    expect(depth('{"a":[{"b":[]}]}')).toBe(4);
    expect(depth('{"a":"[[[{{{\\"[[["}')).toBe(1);
    expect(depth('[' + '"\\\\",'.repeat(3) + '[]]')).toBe(2);
  });

  it('stops counting once past the limit', () => {
    expect(depth('['.repeat(100_000))).toBe(100_000);
    expect(jsonDepthOf(Buffer.from('['.repeat(100_000)), 64)).toBe(65);
  });
});
