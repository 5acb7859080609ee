import { describe, expect, it } from '@jest/globals';
import { assignFunctionNames, FUNCTION_NAME_MAX_LENGTH, validFunctionName } from './tool-names.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

describe('validFunctionName', () => {
  it('keeps a name that is already valid', () => {
    expect(validFunctionName('get-sum')).toBe('get-sum');
    expect(validFunctionName('echo_2')).toBe('echo_2');
  });

  it('replaces characters providers reject and cuts to 64', () => {
    expect(validFunctionName('files.read/v2 beta')).toBe('files_read_v2_beta');
    expect(validFunctionName('résumé:ß')).toBe('r_sum___');
    const long = validFunctionName('x'.repeat(100));
    expect(long).toHaveLength(FUNCTION_NAME_MAX_LENGTH);
    expect(validFunctionName('')).toBe('tool');
  });
});

describe('assignFunctionNames', () => {
  it('gives every tool a valid name, unique across toolsets, first come keeps the plain name', () => {
    const names = assignFunctionNames(['echo', 'get-sum', 'echo', 'echo', 'a.b', 'a_b']);
    expect(names).toEqual(['echo', 'get-sum', 'echo_2', 'echo_3', 'a_b', 'a_b_2']);
    names.forEach((name) => expect(name).toMatch(VALID));
  });

  it('treats names that differ only by case as the same (some providers fold case)', () => {
    expect(assignFunctionNames(['Search', 'search'])).toEqual(['Search', 'search_2']);
  });

  it('keeps suffixed names within 64 characters and unique', () => {
    const long = 'n'.repeat(70);
    const names = assignFunctionNames([long, long, long]);
    expect(new Set(names).size).toBe(3);
    names.forEach((name) => expect(name).toMatch(VALID));
    expect(names[1].endsWith('_2')).toBe(true);
  });

  it('does not collide with a real tool already named like a suffix', () => {
    const names = assignFunctionNames(['echo_2', 'echo', 'echo']);
    expect(new Set(names).size).toBe(3);
    expect(names).toEqual(['echo_2', 'echo', 'echo_3']);
  });
});
