import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { greeting } from '../access/support.js';
import { api } from '../support/http.js';
import { createWorkflow } from '../support/runs.js';
import { startStack, type TestStack } from '../support/stack.js';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('request bodies: nesting limit and NUL', () => {
  let stack: TestStack;
  let workflowId: string;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
    workflowId = await createWorkflow(stack.apiUrl, greeting('deep'));
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('answers 400 BODY_TOO_DEEP to JSON nested deeper than 64, on every route (run inputs, schemas, /mcp)', async () => {
    const deep = nested(6000);
    const bodies: [string, string][] = [
      [`/workflows/${workflowId}/runs`, `{"inputs":{"who":${deep}}}`],
      ['/workflows', `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"default":${deep}}}},"nodes":[],"edges":[]}`],
      ['/mcp/0123456789abcdef01234567', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":${deep}}}`],
    ];
    for (const [path, body] of bodies) {
      const res = await api(stack.apiUrl, 'POST', path, body, {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 400, code: 'BODY_TOO_DEEP' });
    }
    const atLimit = await api(stack.apiUrl, 'POST', `/workflows/${workflowId}/runs`, `{"inputs":{"who":${nested(62)}}}`, {
      'content-type': 'application/json',
    });
    expect(atLimit.status).toBe(400);
    expect(atLimit.body.code).toBe('VALIDATION_FAILED');
  });

  it('refuses NUL in stored strings with the path instead of failing in the store', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/api-keys', { name: 'a\u0000b', scopes: ['read'] }, '/name'],
      ['/workflows', { ...greeting('n\u0000ul') }, '/name'],
      ['/toolsets', { url: 'http://127.0.0.1:9/mcp', headers: { 'x-a\u0000': 'v' } }, '/headers/x-a\u0000'],
      ['/mcp-servers', { name: 's\u0000', tools: [{ workflowId }] }, '/name'],
      ['/providers', { name: 'p', baseURL: 'https://llm.example.com/v1', apiKey: 'k', models: ['m\u0000'] }, '/models/0'],
    ];
    for (const [path, body, at] of cases) {
      const res = await api<{ code: string; errors: { path: string; code: string }[] }>(stack.apiUrl, 'POST', path, body);
      expect({ path, status: res.status, errors: res.body.errors }).toEqual({
        path,
        status: 400,
        errors: [expect.objectContaining({ path: at, code: 'NUL_CHARACTER' })],
      });
    }
  });
});
