import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '#workflow/nest';
import { as, createKey, type CreatedKey } from '../access/support.js';
import { bearer } from '../support/auth.js';
import { api } from '../support/http.js';
import {
  callEntry,
  closeV1,
  connectV1,
  connectV1Sse,
  connectV2,
  createGreetWorkflow,
  mcpEntries,
  publish,
  type PublishedServer,
} from '../support/mcp-servers.js';
import { startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, string> };

const UNKNOWN_KEY = `mcpf_${'x'.repeat(43)}`;

/** A JSON-RPC error body (what MCP clients expect), never the REST error shape. */
function expectJsonRpcError(body: string, message: RegExp): void {
  expect(JSON.parse(body)).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(message) }, id: null });
}

describe('who may call a published MCP server: mcp keys limited to servers, 401 and 403 on every entry', () => {
  let stack: TestStack;
  let alpha: string;
  let beta: string;
  let both: PublishedServer;
  let alphaOnly: PublishedServer;
  let anyServer: CreatedKey;
  let oneServer: CreatedKey;
  let restOnly: CreatedKey;
  let alphaLimited: CreatedKey;

  beforeAll(async () => {
    stack = await startRunStack();
    alpha = await createGreetWorkflow(stack.apiUrl, 'alpha', 'Alpha');
    beta = await createGreetWorkflow(stack.apiUrl, 'beta', 'Beta');
    both = await publish(stack.apiUrl, { name: 'both', tools: [{ workflowId: alpha }, { workflowId: beta }] });
    alphaOnly = await publish(stack.apiUrl, { name: 'alpha only', tools: [{ workflowId: alpha }] });
    anyServer = await createKey(stack.apiUrl, { name: 'any server', scopes: ['mcp'] });
    oneServer = await createKey(stack.apiUrl, { name: 'one server', scopes: ['mcp'], mcpServers: [both.id] });
    restOnly = await createKey(stack.apiUrl, { name: 'rest only', scopes: ['run', 'read'] });
    alphaLimited = await createKey(stack.apiUrl, { name: 'alpha only', scopes: ['mcp'], workflows: [alpha] });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('stores mcpServers on the key and refuses it where it would mean nothing, with its path', async () => {
    expect(oneServer).toMatchObject({ scopes: ['mcp'], mcpServers: [both.id], workflows: null });
    expect(anyServer.mcpServers).toBeNull();
    for (const [body, message] of [
      [{ scopes: ['run'], mcpServers: [both.id] }, 'only a key with the "mcp" scope may be limited to MCP servers'],
      [{ scopes: ['admin', 'mcp'], mcpServers: [both.id] }, 'an "admin" key calls every MCP server: drop admin or mcpServers'],
      [{ scopes: ['mcp'], mcpServers: ['nope'] }, 'not an MCP server id'],
    ] as const) {
      const res = await api<{ errors: { path: string; message: string }[] }>(stack.apiUrl, 'POST', '/api-keys', { name: 'bad', ...body });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^\/mcpServers/), message })]);
    }
  });

  it('answers a missing, malformed or unknown key 401 with WWW-Authenticate on every entry, before looking at the server', async () => {
    const missing = mcpEntries(`${stack.apiUrl}/mcp/${'0'.repeat(24)}`);
    for (const entry of [...mcpEntries(both.url), ...missing]) {
      for (const authorization of [undefined, 'Bearer', `Bearer ${UNKNOWN_KEY}`, 'Basic dXNlcjpwYXNz']) {
        const res = await callEntry(entry, authorization);
        const challenge = authorization?.startsWith('Bearer mcpf')
          ? 'Bearer realm="mcpflow", error="invalid_token"'
          : 'Bearer realm="mcpflow"';
        expect({ entry: entry.name, authorization, status: res.status, challenge: res.headers.get('www-authenticate') }).toEqual({
          entry: entry.name,
          authorization,
          status: 401,
          challenge,
        });
        expectJsonRpcError(res.body, /^A valid API key is required/);
      }
    }
  });

  it('answers 403 insufficient_scope to a key without mcp, and to an mcp key limited to other servers, on every entry', async () => {
    const refusals = [
      { key: restOnly.key, url: both.url, message: /lacks the scope "mcp"/ },
      { key: oneServer.key, url: alphaOnly.url, message: new RegExp(`may not call MCP server ${alphaOnly.id}`) },
    ];
    for (const { key, url, message } of refusals) {
      for (const entry of mcpEntries(url)) {
        const res = await callEntry(entry, `Bearer ${key}`);
        expect({ entry: entry.name, status: res.status }).toEqual({ entry: entry.name, status: 403 });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mcpflow", error="insufficient_scope", scope="mcp"');
        expectJsonRpcError(res.body, message);
      }
    }
    // The REST routes stay closed to an mcp-only key.
    expect((await as(anyServer.key)(stack.apiUrl, 'GET', '/workflows')).status).toBe(403);
  });

  it('lets an mcp key call its server with every client generation; its runs name the key (triggeredBy) and the server', async () => {
    const headers = bearer(oneServer.key);
    const v1 = await connectV1(both.url, headers);
    const v2 = await connectV2(both.url, {}, headers);
    const sse = await connectV1Sse(both.url, { headers });
    const runIds: string[] = [];
    for (const [i, client] of [v1, v2, sse].entries()) {
      const result = (await client.callTool({ name: 'alpha', arguments: { name: `gen-${i}` } })) as ToolResult;
      expect(result.structuredContent).toEqual({ greeting: `Alpha gen-${i}`, n: 1 });
      runIds.push(String(result._meta?.['mcpflow/runId']));
    }
    await closeV1(v1);
    await v2.close();
    await sse.close();
    for (const runId of runIds) {
      const run = await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`);
      expect(run.body).toMatchObject({ source: 'mcp', mcpServerId: both.id, triggeredBy: oneServer.id, workflowId: alpha });
    }
    const byKey = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?triggeredBy=${oneServer.id}`);
    expect(byKey.body.items.map((run) => run.id).sort()).toEqual([...runIds].sort());
    // admin calls every server
    const admin = await connectV1(alphaOnly.url);
    expect((await admin.listTools()).tools.map((tool) => tool.name)).toEqual(['alpha']);
    await closeV1(admin);
  }, 30_000);

  it('a workflow-limited key lists only the tools of its workflows and cannot call another', async () => {
    const client = await connectV1(both.url, bearer(alphaLimited.key));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['alpha']);
    await expect(client.callTool({ name: 'beta', arguments: { name: 'Eve' } })).rejects.toThrow(/Unknown tool: beta/);
    const result = (await client.callTool({ name: 'alpha', arguments: { name: 'Ada' } })) as ToolResult;
    expect(result.structuredContent).toEqual({ greeting: 'Alpha Ada', n: 1 });
    await closeV1(client);
    const runs = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${beta}`);
    expect(runs.body.items).toEqual([]);
  });

  it('stops a revoked key at its next request, an open legacy SSE session included', async () => {
    const doomed = await createKey(stack.apiUrl, { name: 'doomed', scopes: ['mcp'] });
    const sse = await connectV1Sse(both.url, { headers: bearer(doomed.key) });
    expect((await sse.listTools()).tools).toHaveLength(2);
    const [post] = mcpEntries(both.url);
    expect((await callEntry(post, `Bearer ${doomed.key}`)).status).toBe(200);

    expect((await api(stack.apiUrl, 'DELETE', `/api-keys/${doomed.id}`)).status).toBe(204);
    for (const entry of mcpEntries(both.url)) expect((await callEntry(entry, `Bearer ${doomed.key}`)).status).toBe(401);
    await expect(sse.listTools()).rejects.toThrow(/401/);
    await sse.close();
  });
});
