import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  callEntry,
  closeV1,
  connectV1,
  connectV1Sse,
  connectV2,
  createGreetWorkflow,
  greetWorkflow,
  mcpEntries,
  publish,
  slowWorkflow,
  type PublishedServer,
} from '../support/mcp-servers.js';
import { createWorkflow, registerToolset, runToEnd, startRunStack, waitForRun } from '../support/runs.js';
import { spawnApi, type ApiProcess } from '../support/api-process.js';
import { authenticateAs, keyOf } from '../support/auth.js';
import type { TestStack } from '../support/stack.js';

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; _meta?: Record<string, unknown> };

/** Sends each request to the next API process in turn, as a round-robin load balancer would. */
function alternating(bases: string[]): { fetch: typeof fetch; hosts(): Set<string> } {
  let next = 0;
  const used = new Set<string>();
  return {
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.host = new URL(bases[next++ % bases.length]).host;
      used.add(url.host);
      return fetch(url, init);
    },
    hosts: () => used,
  };
}

describe('published MCP server under load and behind several API processes', () => {
  let stack: TestStack;
  let second: ApiProcess;
  let fixture: FixtureServer;
  let server: PublishedServer;
  let slowId: string;
  let greetId: string;

  beforeAll(async () => {
    stack = await startRunStack({ WORKER_CONCURRENCY: '20' });
    // A second API process (node dist/…/main.js) over the same MongoDB and Redis: nothing but those two is shared.
    second = await spawnApi(stack.config);
    authenticateAs(second.url, keyOf(stack.apiUrl));
    fixture = await startFixtureServer({ tools: basicTools() });
    const toolsetId = await registerToolset(stack.apiUrl, fixture.url);
    slowId = await createWorkflow(stack.apiUrl, slowWorkflow(toolsetId));
    greetId = await createGreetWorkflow(stack.apiUrl, 'hello', 'Hello');
    const hey = await createGreetWorkflow(stack.apiUrl, 'hey', 'Hey');
    const bonjour = await createGreetWorkflow(stack.apiUrl, 'bonjour', 'Bonjour');
    server = await publish(stack.apiUrl, {
      name: 'busy',
      tools: [{ workflowId: greetId }, { workflowId: hey }, { workflowId: bonjour }, { workflowId: slowId }],
    });
  }, 60_000);
  afterAll(async () => {
    await second?.stop();
    await stack.close();
    await fixture.close();
  });

  it('50 concurrent clients of three generations, each calling a different workflow with its own arguments, each get exactly their own result', async () => {
    const prefixes = { hello: 'Hello', hey: 'Hey', bonjour: 'Bonjour' } as const;
    const names = Object.keys(prefixes) as Array<keyof typeof prefixes>;
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const tool = names[i % names.length];
        const args = { name: `client-${i}`, n: i };
        const kind = i % 3;
        if (kind === 0) {
          const client = await connectV1(server.url);
          const result = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
          await closeV1(client);
          return { i, tool, result };
        }
        if (kind === 1) {
          const client = await connectV2(server.url);
          const result = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
          await client.close();
          return { i, tool, result };
        }
        const client = await connectV1Sse(server.url);
        const result = (await client.callTool({ name: tool, arguments: args })) as ToolResult;
        await client.close();
        return { i, tool, result };
      }),
    );
    const runIds = new Set<string>();
    for (const { i, tool, result } of results) {
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ greeting: `${prefixes[tool]} client-${i}`, n: i });
      runIds.add(String(result._meta?.['mcpflow/runId']));
    }
    expect(runIds.size).toBe(50);
  }, 60_000);

  it('a Streamable HTTP client whose requests alternate between two API processes: list, call, progress, cancel, list_changed', async () => {
    const lb = alternating([stack.apiUrl, second.url]);
    const client = new ClientV1({ name: 'behind a load balancer', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { fetch: lb.fetch }));
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['hello', 'hey', 'bonjour', 'slow']);
    for (let i = 0; i < 4; i += 1) {
      const result = (await client.callTool({ name: 'hello', arguments: { name: `lb-${i}` } })) as ToolResult;
      expect(result.structuredContent).toEqual({ greeting: `Hello lb-${i}`, n: 1 });
    }
    const updates: number[] = [];
    await client.callTool({ name: 'slow', arguments: { steps: 1, stepMs: 1 } }, undefined, {
      onprogress: (update) => void updates.push(update.progress),
    });
    expect(updates.length).toBeGreaterThanOrEqual(3);

    // The call waits on one process; its notifications/cancelled lands on the other.
    const callsBefore = fixture.calls('slow');
    const controller = new AbortController();
    const call = client
      .callTool({ name: 'slow', arguments: { steps: 200, stepMs: 50 } }, undefined, { signal: controller.signal })
      .catch(() => undefined);
    await waitUntil(() => fixture.calls('slow') > callsBefore, 10_000, 'the slow call');
    controller.abort();
    await call;
    // Found by its inputs: ids made by two processes in one second do not sort by time.
    const runs = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${slowId}&limit=10`);
    const canceled = runs.body.items.find((run) => run.inputs.steps === 200);
    expect(await waitForRun(stack.apiUrl, String(canceled?.id), 10_000)).toMatchObject({ status: 'canceled' });

    // A change made through either process reaches the GET stream, wherever it is held.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await api(second.url, 'PUT', `/workflows/${greetId}`, greetWorkflow('hello', 'Hello'))).status).toBe(200);
    await waitUntil(() => changes >= 1, 10_000, 'tools/list_changed');
    expect(lb.hosts()).toEqual(new Set([new URL(stack.apiUrl).host, new URL(second.url).host]));
    await closeV1(client);
  }, 60_000);

  it('a legacy SSE client whose stream is on one process and whose POSTs land on the other', async () => {
    let changes = 0;
    const toSecond = alternating([second.url]);
    const client = await connectV1Sse(server.url, { fetch: toSecond.fetch });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));
    expect((await client.listTools()).tools).toHaveLength(4);
    const result = (await client.callTool({ name: 'bonjour', arguments: { name: 'SSE' } })) as ToolResult;
    expect(result.structuredContent).toEqual({ greeting: 'Bonjour SSE', n: 1 });
    expect((await api(second.url, 'PATCH', `/mcp-servers/${server.id}`, { description: 'changed' })).status).toBe(200);
    await waitUntil(() => changes >= 1, 10_000, 'tools/list_changed on the SSE stream');
    expect(toSecond.hosts()).toEqual(new Set([new URL(second.url).host]));
    // A session is reached only by its own id: an unknown one is 404 on either process.
    for (const base of [stack.apiUrl, second.url]) {
      const res = await api(base, 'POST', `/mcp/${server.id}/messages?sessionId=00000000-0000-4000-8000-000000000000`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'ping',
      });
      expect(res.status).toBe(404);
    }
    await client.close();
  }, 30_000);

  it('mcpflow calls its own published server: a workflow whose mcpTool node is a published workflow', async () => {
    // The worker calls the published server like any MCP client: with an API key in the toolset's headers.
    const registered = await api<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', {
      name: 'mcpflow itself',
      url: server.url,
      headers: { Authorization: `Bearer ${keyOf(stack.apiUrl)}` },
    });
    expect(registered.status).toBe(201);
    const toolsetId = registered.body.id;
    const outer = await createWorkflow(stack.apiUrl, {
      name: 'outer',
      inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'inner',
          type: 'mcpTool',
          config: { toolsetId, tool: 'bonjour' },
          inputs: { name: { template: 'inner {{start.who}}' }, n: { value: 7 } },
        },
        { id: 'end', type: 'end', inputs: { greeting: { ref: 'inner.result.greeting' }, n: { ref: 'inner.result.n' } } },
      ],
      edges: [
        { source: 'start', target: 'inner' },
        { source: 'inner', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, outer, { who: 'Grace' });
    expect(run).toMatchObject({ status: 'succeeded', source: 'api', outputs: { greeting: 'Bonjour inner Grace', n: 7 } });
    const inner = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?limit=5`);
    expect(inner.body.items.find((item) => item.source === 'mcp' && item.inputs.name === 'inner Grace')).toMatchObject({
      status: 'succeeded',
      mcpServerId: server.id,
    });
  }, 30_000);

  it('a PATCH is served at once by both processes; a DELETE answers 404 at once on both and ends the streams each holds', async () => {
    const doomed = await publish(stack.apiUrl, { name: 'doomed', tools: [{ workflowId: greetId }] });
    const onFirst = doomed.url;
    const onSecond = `${second.url}/mcp/${doomed.id}`;
    const v1 = await connectV1(onSecond);
    const v2 = await connectV2(onFirst);
    const names = async (client: { listTools(): Promise<{ tools: Array<{ name: string }> }> }) =>
      (await client.listTools()).tools.map((tool) => tool.name);
    expect([await names(v1), await names(v2)]).toEqual([['hello'], ['hello']]);
    const sse = await connectV1Sse(onSecond);
    // A 2025 GET stream and a legacy SSE stream held by the second process, read raw (an SDK client
    // would reconnect): each read resolves once the server ends its stream.
    const streams = await Promise.all([onSecond, `${onSecond}/sse`].map((url) => fetch(url, { headers: { accept: 'text/event-stream' } })));
    expect(streams.map((stream) => stream.status)).toEqual([200, 200]);
    const streamsEnded = Promise.all(streams.map((stream) => stream.text().catch(() => '')));

    expect((await api(stack.apiUrl, 'PATCH', `/mcp-servers/${doomed.id}`, { tools: [{ workflowId: slowId }] })).status).toBe(200);
    expect([await names(v1), await names(v2), await names(sse)]).toEqual([['slow'], ['slow'], ['slow']]);

    expect((await api(second.url, 'DELETE', `/mcp-servers/${doomed.id}`)).status).toBe(204);
    for (const url of [onFirst, onSecond]) {
      for (const entry of mcpEntries(url)) {
        const res = await callEntry(entry, `Bearer ${keyOf(stack.apiUrl)}`);
        expect({ entry: entry.name, url, status: res.status }).toEqual({ entry: entry.name, url, status: 404 });
      }
    }
    await expect(v1.listTools()).rejects.toThrow(/not found/);
    await expect(v2.listTools()).rejects.toThrow();
    await streamsEnded;
    await Promise.all([closeV1(v1), v2.close(), sse.close()]);
  }, 30_000);
});
