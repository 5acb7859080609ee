import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { as, createKey } from '../access/support.js';
import { callEntry, createGreetWorkflow, mcpEntries, publish, type PublishedServer } from '../support/mcp-servers.js';
import { startStack, type TestStack } from '../support/stack.js';

const UNKNOWN_KEY = `mcpf_${'y'.repeat(43)}`;

describe('rate limits at /mcp/<id>: per key (shared with REST) and failed authentications per address', () => {
  let stack: TestStack;
  let server: PublishedServer;

  beforeAll(async () => {
    // The admin key makes 3 requests here; each test key gets its own 10.
    stack = await startStack(
      { RATE_LIMIT_PER_MINUTE: '10', AUTH_FAILURES_PER_MINUTE: '3', AUTH_FAILURE_BLOCK_SECONDS: '120' },
      { worker: false },
    );
    const greet = await createGreetWorkflow(stack.apiUrl);
    server = await publish(stack.apiUrl, { name: 'limited', tools: [{ workflowId: greet }] });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers 429 with Retry-After once a key used its requests of the minute, MCP and REST requests counted together', async () => {
    const busy = await createKey(stack.apiUrl, { name: 'busy', scopes: ['mcp', 'read'] });
    const other = await createKey(stack.apiUrl, { name: 'other', scopes: ['mcp'] });
    const [post] = mcpEntries(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      statuses.push((await callEntry(post, `Bearer ${busy.key}`)).status);
      statuses.push((await as(busy.key)(stack.apiUrl, 'GET', '/workflows')).status);
    }
    expect(statuses).toEqual(Array(10).fill(200));

    const limited = await callEntry(post, `Bearer ${busy.key}`);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(JSON.parse(limited.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Too many requests for this API key' },
      id: null,
    });
    for (const entry of mcpEntries(server.url)) expect((await callEntry(entry, `Bearer ${busy.key}`)).status).toBe(429);
    expect((await callEntry(post, `Bearer ${other.key}`)).status).toBe(200);
  });

  it('blocks an address after too many failed authentications, for guesses only (a valid key passes)', async () => {
    const valid = await createKey(stack.apiUrl, { name: 'valid', scopes: ['mcp'] });
    const [post, get, , sse] = mcpEntries(server.url);
    expect((await callEntry(post, undefined)).status).toBe(401);
    expect((await callEntry(get, `Bearer ${UNKNOWN_KEY}`)).status).toBe(401);
    expect((await callEntry(sse, `Bearer ${UNKNOWN_KEY}`)).status).toBe(401);
    const blocked = await callEntry(post, `Bearer ${UNKNOWN_KEY}`);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect(JSON.parse(blocked.body).error.message).toBe('Too many failed authentications from this address');
    expect((await callEntry(get, `Bearer ${UNKNOWN_KEY}`)).status).toBe(429);
    expect((await callEntry(post, `Bearer ${valid.key}`)).status).toBe(200);
  });
});
