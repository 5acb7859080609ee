import { describe, expect, it } from '@jest/globals';
import { redactArguments } from './redact-arguments.js';

describe('redactArguments', () => {
  it('redacts values under credential names at any depth, not look-alikes', () => {
    const args = {
      query: 'q',
      apiKey: 'k1',
      nested: { github_token: 't', list: [{ password: 'p' }] },
      maxTokens: 10,
      authorization: 'Bearer x',
    };
    expect(redactArguments(args)).toEqual({
      query: 'q',
      apiKey: '***',
      nested: { github_token: '***', list: [{ password: '***' }] },
      maxTokens: 10,
      authorization: '***',
    });
    expect(args.apiKey).toBe('k1');
  });

  it('redacts arguments the tool schema marks secret', () => {
    const schema = {
      type: 'object',
      properties: { pin: { type: 'string', writeOnly: true }, code: { type: 'string', format: 'password' }, name: { type: 'string' } },
    };
    expect(redactArguments({ pin: '1234', code: 'c', name: 'n' }, schema)).toEqual({ pin: '***', code: '***', name: 'n' });
  });
});
