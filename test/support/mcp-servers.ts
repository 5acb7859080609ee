import { expect } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { anonymousFetch } from './auth.js';
import { api } from './http.js';
import { createWorkflow } from './runs.js';

/** Published MCP servers in e2e tests: workflows to publish, publishing, and MCP clients of each generation. */

export interface PublishedServer {
  id: string;
  url: string;
  tools: Array<{ workflowId: string; name: string; description: string | null }>;
}

export async function publish(apiUrl: string, body: Record<string, unknown>): Promise<PublishedServer> {
  const res = await api<PublishedServer>(apiUrl, 'POST', '/mcp-servers', body);
  if (res.status !== 201) throw new Error(`MCP server not created (${res.status}): ${JSON.stringify(res.body)}`);
  return res.body;
}

/** start → template → end: `{greeting: "Hello <name>", n: <n>}`, no MCP server needed. */
export function greetWorkflow(name = 'greet', prefix = 'Hello') {
  return {
    name,
    description: `Greets someone (${prefix})`,
    inputSchema: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', description: 'who to greet' },
        n: { type: 'integer', default: 1 },
        tags: { type: 'array', items: { type: 'string' } },
      },
    },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'say', type: 'template', inputs: { text: { template: `${prefix} {{start.name}}` } } },
      { id: 'end', type: 'end', inputs: { greeting: { ref: 'say.text' }, n: { ref: 'start.n' } } },
    ],
    edges: [
      { source: 'start', target: 'say' },
      { source: 'say', target: 'end' },
    ],
  };
}

export const createGreetWorkflow = (apiUrl: string, name = 'greet', prefix = 'Hello') =>
  createWorkflow(apiUrl, greetWorkflow(name, prefix));

/** start → slow (fixture tool, `steps` × `stepMs`) → end: for progress and cancel. */
export function slowWorkflow(toolsetId: string, name = 'slow') {
  return {
    name,
    inputSchema: { type: 'object', properties: { steps: { type: 'integer', default: 3 }, stepMs: { type: 'integer', default: 50 } } },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'first', type: 'template', inputs: { text: { template: 'about to be slow' } } },
      {
        id: 'slow',
        type: 'mcpTool',
        config: { toolsetId, tool: 'slow' },
        inputs: { steps: { ref: 'start.steps' }, stepMs: { ref: 'start.stepMs' }, progress: { value: false } },
      },
      { id: 'end', type: 'end', inputs: { text: { ref: 'slow.text' } } },
    ],
    edges: [
      { source: 'start', target: 'first' },
      { source: 'first', target: 'slow' },
      { source: 'slow', target: 'end' },
    ],
  };
}

const clientInfo = { name: 'mcpflow-e2e', version: '1.0.0' };

/** SDK v1 over Streamable HTTP: a 2025-11-25 client. */
export async function connectV1(url: string, headers: Record<string, string> = {}): Promise<ClientV1> {
  const client = new ClientV1(clientInfo);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** SDK v1 over the legacy HTTP+SSE transport (2024-11-05 endpoints); `fetch` may route requests elsewhere. */
export async function connectV1Sse(
  url: string,
  options: { headers?: Record<string, string>; fetch?: typeof fetch } = {},
): Promise<ClientV1> {
  const client = new ClientV1(clientInfo);
  const headers = options.headers ?? {};
  await client.connect(
    new SSEClientTransport(new URL(`${url}/sse`), {
      requestInit: { headers },
      eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } }) },
      fetch: options.fetch,
    }),
  );
  return client;
}

/** SDK v2 in `auto` mode: speaks 2026-07-28 (stateless, server/discover) with a modern server. */
export async function connectV2(
  url: string,
  options: ConstructorParameters<typeof ClientV2>[1] = {},
  headers: Record<string, string> = {},
): Promise<ClientV2> {
  const client = new ClientV2(clientInfo, { ...options, versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransportV2(new URL(url), { requestInit: { headers } }));
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  return client;
}

/** Closes a v1 Streamable HTTP client the way the SDK needs to end its session (DELETE first). */
export async function closeV1(client: ClientV1): Promise<void> {
  const transport = client.transport;
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
  await client.close();
}

/** One request to each MCP entry point of a published server (Streamable HTTP POST/GET/DELETE, legacy SSE stream and messages). */
export interface McpEntry {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
});

export function mcpEntries(serverUrl: string): McpEntry[] {
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return [
    { name: 'Streamable HTTP POST', method: 'POST', url: serverUrl, headers: json, body: INITIALIZE },
    { name: 'Streamable HTTP GET', method: 'GET', url: serverUrl, headers: { accept: 'text/event-stream' } },
    { name: 'Streamable HTTP DELETE', method: 'DELETE', url: serverUrl, headers: { 'mcp-session-id': 'a-session' } },
    { name: 'legacy SSE stream', method: 'GET', url: `${serverUrl}/sse`, headers: { accept: 'text/event-stream' } },
    {
      name: 'legacy SSE message',
      method: 'POST',
      url: `${serverUrl}/messages?sessionId=00000000-0000-4000-8000-000000000000`,
      headers: json,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    },
  ];
}

/** Sends one entry's request with exactly these credentials (none: no authorization header at all) and reads the whole answer. */
export async function callEntry(
  entry: McpEntry,
  authorization: string | undefined,
): Promise<{ status: number; body: string; headers: Headers }> {
  const headers = { ...entry.headers, ...(authorization !== undefined && { authorization }) };
  const res = await anonymousFetch(entry.url, { method: entry.method, headers, body: entry.body });
  return { status: res.status, body: await res.text(), headers: res.headers };
}
