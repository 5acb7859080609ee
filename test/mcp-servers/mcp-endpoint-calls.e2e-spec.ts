import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  closeV1,
  connectV1,
  connectV1Sse,
  connectV2,
  createGreetWorkflow,
  greetWorkflow,
  publish,
  slowWorkflow,
  type PublishedServer,
} from '../support/mcp-servers.js';
import { createWorkflow, registerToolset, startRunStack, waitForRun } from '../support/runs.js';
import { keyOf } from '../support/auth.js';
import type { TestStack } from '../support/stack.js';

type ToolResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
};

/** A raw request with any Host / Origin (fetch would not let a test forge Host). */
function rawPost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    // node:http, not fetch: the Host header must be settable. So the stack's key is sent here by hand.
    const auth = { authorization: `Bearer ${keyOf(url)}` };
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth, ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
  });
}

describe('published MCP server: progress, cancel, errors, list_changed, DNS rebinding', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let server: PublishedServer;
  let greetId: string;
  let slowId: string;

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: basicTools() });
    const toolsetId = await registerToolset(stack.apiUrl, fixture.url);
    greetId = await createGreetWorkflow(stack.apiUrl, 'greet');
    slowId = await createWorkflow(stack.apiUrl, slowWorkflow(toolsetId));
    const failId = await createWorkflow(stack.apiUrl, {
      name: 'always fails',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'boom', type: 'mcpTool', config: { toolsetId, tool: 'fail' }, inputs: {} },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'boom' },
        { source: 'boom', target: 'end' },
      ],
    });
    server = await publish(stack.apiUrl, {
      name: 'behaviour',
      tools: [{ workflowId: greetId }, { workflowId: slowId }, { workflowId: failId, name: 'fails' }],
    });
  }, 30_000);
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  async function latestRunOf(workflowId: string): Promise<RunView> {
    const res = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${workflowId}&limit=1`);
    return res.body.items[0];
  }

  it('sends one progress notification per finished node when the client sends a progressToken', async () => {
    const client = await connectV1(server.url);
    // Its outputSchema comes from what the mcpTool node declares for the output the end node takes.
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'slow')?.outputSchema).toEqual({ type: 'object', properties: { text: { type: 'string' } } });
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = (await client.callTool({ name: 'slow', arguments: { steps: 2, stepMs: 20 } }, undefined, {
      onprogress: (update) => void updates.push(update),
    })) as ToolResult;
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ text: 'done after 2 steps' });
    const runId = String(result._meta?.['mcpflow/runId']);
    expect(updates.map((update) => update.progress)).toEqual(updates.map((_, index) => index + 1));
    expect(updates.every((update) => update.total === 4)).toBe(true);
    for (const node of ['start', 'first', 'slow'])
      expect(updates.some((update) => update.message === `run ${runId}: node ${node} succeeded`)).toBe(true);
    await closeV1(client);
  });

  it('answers invalid arguments with a tool error naming each path, and starts no run', async () => {
    const client = await connectV1(server.url);
    const before = await latestRunOf(greetId);
    const result = (await client.callTool({ name: 'greet', arguments: { n: 'three', tags: ['a', 2] } })) as ToolResult;
    expect(result.isError).toBe(true);
    const text = result.content[0].text ?? '';
    expect(text).toContain("/arguments/name: must have required property 'name'");
    expect(text).toContain('/arguments/n: must be integer');
    expect(text).toContain('/arguments/tags/1: must be string');
    expect((await latestRunOf(greetId))?.id).toBe(before?.id);
    await closeV1(client);
  });

  it('answers a failed run with isError, its error code and its run id; an unknown tool is a protocol error', async () => {
    const client = await connectV2(server.url);
    const result = (await client.callTool({ name: 'fails', arguments: {} })) as ToolResult;
    expect(result.isError).toBe(true);
    const runId = String(result._meta?.['mcpflow/runId']);
    expect(result.content[0].text).toMatch(/^MCP_TOOL_ERROR: /);
    expect(result.content[0].text).toContain(`run ${runId}, node boom`);
    expect((await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`)).body).toMatchObject({ status: 'failed', source: 'mcp' });
    await expect(client.callTool({ name: 'no-such-tool', arguments: {} })).rejects.toThrow(/Unknown tool: no-such-tool/);
    await client.close();
  });

  async function expectCanceledRun(abortCall: (signal: AbortSignal) => Promise<unknown>) {
    const callsBefore = fixture.calls('slow');
    const cancellationsBefore = fixture.cancellations();
    const controller = new AbortController();
    const call = abortCall(controller.signal).catch((error: unknown) => error);
    await waitUntil(() => fixture.calls('slow') > callsBefore, 10_000, 'the slow node to call its tool');
    controller.abort('the user clicked stop');
    await call;
    const run = await waitForRun(stack.apiUrl, (await latestRunOf(slowId)).id, 10_000);
    expect(run).toMatchObject({ status: 'canceled', source: 'mcp' });
    await waitUntil(() => fixture.cancellations() > cancellationsBefore, 5000, 'the slow tool to be canceled');
  }

  it('cancels the run when a 2026-07-28 client aborts the call', async () => {
    const client = await connectV2(server.url);
    await expectCanceledRun((signal) => client.callTool({ name: 'slow', arguments: { steps: 200, stepMs: 50 } }, { signal }));
    await client.close();
  });

  it('cancels the run when a 2025 Streamable HTTP client sends notifications/cancelled', async () => {
    const client = await connectV1(server.url);
    await expectCanceledRun((signal) => client.callTool({ name: 'slow', arguments: { steps: 200, stepMs: 50 } }, undefined, { signal }));
    await closeV1(client);
  });

  it('cancels the run when a legacy SSE client sends notifications/cancelled', async () => {
    const client = await connectV1Sse(server.url);
    await expectCanceledRun((signal) => client.callTool({ name: 'slow', arguments: { steps: 200, stepMs: 50 } }, undefined, { signal }));
    await client.close();
  });

  it('keeps the run going when a client times out (its cancel says so): the result stays in GET /runs/:id', async () => {
    for (const connect of [() => connectV1(server.url), () => connectV1Sse(server.url)]) {
      const client = await connect();
      const callsBefore = fixture.calls('slow');
      const call = client.callTool({ name: 'slow', arguments: { steps: 10, stepMs: 100 } }, undefined, { timeout: 300 });
      await expect(call).rejects.toThrow(/timed out/i);
      await waitUntil(() => fixture.calls('slow') > callsBefore, 10_000, 'the slow call');
      const run = await waitForRun(stack.apiUrl, (await latestRunOf(slowId)).id, 15_000);
      expect(run).toMatchObject({ status: 'succeeded', outputs: { text: 'done after 10 steps' } });
      await client.close();
    }
  });

  it('tells connected clients of every generation tools/list_changed when a published workflow changes', async () => {
    let v1Changes = 0;
    let sseChanges = 0;
    const v2Changes: string[][] = [];
    const v1 = await connectV1(server.url);
    v1.setNotificationHandler(ToolListChangedNotificationSchema, () => void (v1Changes += 1));
    const sse = await connectV1Sse(server.url);
    sse.setNotificationHandler(ToolListChangedNotificationSchema, () => void (sseChanges += 1));
    const v2 = await connectV2(server.url, {
      listChanged: { tools: { onChanged: (_error, tools) => void v2Changes.push((tools ?? []).map((tool) => tool.name)) } },
    });
    // The v1 client opens its GET stream after initialize, the v2 client its subscription: let both settle.
    await waitUntil(() => v2.autoOpenedSubscription !== undefined, 5000, 'the v2 subscription');
    await new Promise((resolve) => setTimeout(resolve, 300));

    const changed = await api(stack.apiUrl, 'PUT', `/workflows/${greetId}`, { ...greetWorkflow('greet', 'Hi'), description: 'Says hi' });
    expect(changed.status).toBe(200);
    await waitUntil(() => v1Changes >= 1 && sseChanges >= 1 && v2Changes.length >= 1, 10_000, 'list_changed on every client');
    const { tools } = await v1.listTools();
    expect(tools.find((tool) => tool.name === 'greet')?.description).toBe('Says hi');

    await closeV1(v1);
    await sse.close();
    await v2.close();
  });

  it('refuses a foreign Host or Origin (DNS rebinding) and an unknown server before any MCP processing', async () => {
    const { port } = new URL(server.url);
    expect((await rawPost(server.url, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await rawPost(server.url, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost(server.url, { origin: `http://localhost:${port}` })).status).toBe(200);
    const unknown = await rawPost(`${stack.apiUrl}/mcp/0123456789abcdef01234567`, {});
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ jsonrpc: '2.0', error: { message: 'MCP server 0123456789abcdef01234567 not found' } });
  });
});
