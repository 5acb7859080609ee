import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { closeV1, connectV1, connectV1Sse, connectV2, createGreetWorkflow, publish, type PublishedServer } from '../support/mcp-servers.js';
import { createWorkflow, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

describe('published MCP server: every client generation lists and calls workflows as tools', () => {
  let stack: TestStack;
  let server: PublishedServer;
  let greetId: string;

  beforeAll(async () => {
    stack = await startRunStack();
    greetId = await createGreetWorkflow(stack.apiUrl, 'Greet someone');
    server = await publish(stack.apiUrl, { name: 'team tools', description: 'Workflows of the team', tools: [{ workflowId: greetId }] });
  });
  afterAll(async () => {
    await stack.close();
  });

  async function expectGreetingCall(call: (name: string, args: Record<string, unknown>) => Promise<unknown>) {
    const result = (await call('Greet_someone', { name: 'Ada', n: 3 })) as {
      structuredContent: unknown;
      content: Array<{ text: string }>;
      isError?: boolean;
      _meta: Record<string, string>;
    };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent).toEqual({ greeting: 'Hello Ada', n: 3 });
    expect(JSON.parse(result.content[0].text)).toEqual({ greeting: 'Hello Ada', n: 3 });
    const runId = result._meta['mcpflow/runId'];
    const run = await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`);
    expect(run.body).toMatchObject({
      status: 'succeeded',
      source: 'mcp',
      mcpServerId: server.id,
      workflowId: greetId,
      inputs: { name: 'Ada', n: 3 },
    });
  }

  it('SDK v1 over Streamable HTTP (2025-11-25): tools/list shows the workflow, tools/call is a run', async () => {
    const client: ClientV1 = await connectV1(server.url);
    expect(client.getServerVersion()).toMatchObject({ name: 'team tools' });
    expect(client.getInstructions()).toBe('Workflows of the team');
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'Greet_someone',
        title: 'Greet someone',
        description: 'Greets someone (Hello)',
        inputSchema: expect.objectContaining({ type: 'object', required: ['name'] }),
        outputSchema: { type: 'object', properties: { greeting: { type: 'string' }, n: { type: 'integer', default: 1 } } },
        annotations: { title: 'Greet someone', readOnlyHint: true, destructiveHint: false, openWorldHint: false },
      }),
    ]);
    await expectGreetingCall((name, args) => client.callTool({ name, arguments: args }));
    await closeV1(client);
  });

  it('SDK v2 in auto mode speaks 2026-07-28 with it', async () => {
    const client = await connectV2(server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['Greet_someone']);
    await expectGreetingCall((name, args) => client.callTool({ name, arguments: args }));
    await client.close();
  });

  it('seals a secret argument (writeOnly) as REST runs do: *** in the run, never stored in clear', async () => {
    const secretId = await createWorkflow(stack.apiUrl, {
      name: 'with secret',
      inputSchema: { type: 'object', properties: { token: { type: 'string', writeOnly: true } }, required: ['token'] },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: { ok: { value: true } } },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    const holder = await publish(stack.apiUrl, { name: 'secretive', tools: [{ workflowId: secretId, name: 'secretive' }] });
    const client = await connectV2(holder.url);
    const result = (await client.callTool({ name: 'secretive', arguments: { token: 'sk-very-secret-value' } })) as {
      _meta: Record<string, string>;
    };
    const run = await api<RunView>(stack.apiUrl, 'GET', `/runs/${result._meta['mcpflow/runId']}`);
    expect(run.body).toMatchObject({ status: 'succeeded', inputs: { token: '***' } });
    expect(JSON.stringify(run.body)).not.toContain('sk-very-secret-value');
    await client.close();
  });

  it('SDK v1 over the legacy HTTP+SSE transport (2024-11-05 endpoints)', async () => {
    const client = await connectV1Sse(server.url);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['Greet_someone']);
    await expectGreetingCall((name, args) => client.callTool({ name, arguments: args }));
    await client.close();
  });
});
