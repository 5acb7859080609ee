import { describe, expect, it } from '@jest/globals';
import { runSubject, subjectInputKey } from './run-subject.js';

const named = { type: 'object', properties: { text: { type: 'string' }, user: { type: 'string', 'x-mcpflow-subject': true } } };

describe('runSubject', () => {
  it('takes the input the workflow names, spelled apart from key subjects', () => {
    expect(subjectInputKey(named)).toBe('user');
    expect(runSubject(named, { user: 'alice', text: 'x' }, 'k1')).toEqual({ subject: 'input:alice' });
  });

  it('falls back to the calling key only when the workflow names no subject input', () => {
    expect(runSubject({ type: 'object', properties: { text: { type: 'string' } } }, {}, 'k1')).toEqual({ subject: 'key:k1' });
    expect(runSubject(undefined, {}, undefined)).toEqual({ problem: expect.stringContaining('no subject') });
    // Named but absent, empty, too long or not a string: a problem, never another subject's grant.
    for (const user of [undefined, '', 'x'.repeat(257), 42])
      expect(runSubject(named, { user }, 'k1')).toEqual({ problem: expect.stringContaining('"user"') });
  });

  it('refuses a secret subject input (it would be shown where the run waits)', () => {
    const secret = { type: 'object', properties: { user: { type: 'string', writeOnly: true, 'x-mcpflow-subject': true } } };
    expect(runSubject(secret, { user: '***' }, 'k1')).toEqual({ problem: expect.stringContaining('secret') });
  });
});
