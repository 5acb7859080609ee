import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { anonymousFetch } from '../support/auth.js';
import { startStack, type TestStack } from '../support/stack.js';

const BAD_KEY = `mcpf_${'x'.repeat(43)}`;

describe('the failed-authentication block: behind a trusted proxy, for guesses only', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(
      { TRUST_PROXY: '127.0.0.1', AUTH_FAILURES_PER_MINUTE: '3', AUTH_FAILURE_BLOCK_SECONDS: '120' },
      { worker: false },
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  const from = (client: string, key?: string, method = 'GET', path = '/workflows') =>
    anonymousFetch(`${stack.apiUrl}${path}`, {
      method,
      headers: { 'x-forwarded-for': client, ...(key && { authorization: `Bearer ${key}` }) },
    });

  it('blocks the guessing client only, lets a valid key through its block, and does not count preflights', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) statuses.push((await from('203.0.113.7', BAD_KEY)).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses.at(-1)).toBe(429);
    // Another client behind the same proxy is not blocked.
    expect((await from('203.0.113.8', BAD_KEY)).status).toBe(401);
    // A valid key from the blocked client passes.
    expect((await from('203.0.113.7', stack.config.auth.adminApiKey)).status).toBe(200);
    // CORS preflights (no key) are not guesses.
    for (let attempt = 0; attempt < 5; attempt += 1) await from('203.0.113.9', undefined, 'OPTIONS', '/mcp/0123456789abcdef01234567');
    expect((await from('203.0.113.9', BAD_KEY)).status).toBe(401);
  });
});
