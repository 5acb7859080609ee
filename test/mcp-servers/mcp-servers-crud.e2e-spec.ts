import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api } from '../support/http.js';
import { createGreetWorkflow, publish, type PublishedServer } from '../support/mcp-servers.js';
import { startRunStack, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

describe('/mcp-servers: publishing workflows as an MCP server', () => {
  let stack: TestStack;
  let greetId: string;
  let otherId: string;

  beforeAll(async () => {
    stack = await startRunStack({}, { worker: false });
    greetId = await createGreetWorkflow(stack.apiUrl, 'Greet / someone!');
    otherId = await createGreetWorkflow(stack.apiUrl, 'Greet / someone!', 'Hey');
  });
  afterAll(async () => {
    await stack.close();
  });

  it('creates, reads, lists, changes and deletes a server; url is the endpoint to give a client', async () => {
    const created = await api<PublishedServer & { name: string; description: string | null }>(stack.apiUrl, 'POST', '/mcp-servers', {
      name: 'support',
      description: 'Support workflows',
      tools: [{ workflowId: greetId }, { workflowId: otherId, description: 'Greets, casually' }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body).toEqual({
      id,
      name: 'support',
      description: 'Support workflows',
      url: `${stack.apiUrl}/mcp/${id}`,
      // Default names come from the workflow name, made valid and unique.
      tools: [
        { workflowId: greetId, name: 'Greet_someone', description: null },
        { workflowId: otherId, name: 'Greet_someone_2', description: 'Greets, casually' },
      ],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api(stack.apiUrl, 'GET', `/mcp-servers/${id}`)).body).toEqual(created.body);
    const list = await api<{ items: PublishedServer[]; nextCursor: string | null }>(stack.apiUrl, 'GET', '/mcp-servers?limit=1');
    expect(list.body.items.map((item) => item.id)).toEqual([id]);

    const patched = await api<PublishedServer & { description: string | null }>(stack.apiUrl, 'PATCH', `/mcp-servers/${id}`, {
      description: null,
      tools: [{ workflowId: greetId, name: 'greet.v1' }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: null, tools: [{ workflowId: greetId, name: 'greet.v1', description: null }] });

    expect((await api(stack.apiUrl, 'DELETE', `/mcp-servers/${id}`)).status).toBe(204);
    expect((await api(stack.apiUrl, 'GET', `/mcp-servers/${id}`)).status).toBe(404);
    expect((await api(stack.apiUrl, 'DELETE', `/mcp-servers/${id}`)).status).toBe(404);
  });

  it('refuses bad bodies with every problem and its path: tool-name rules, duplicates, unknown workflows, unknown fields', async () => {
    const bad = await api<{ code: string; errors: Problem[] }>(stack.apiUrl, 'POST', '/mcp-servers', {
      name: 'x',
      tools: [{ workflowId: greetId, name: 'has space' }, { workflowId: greetId, name: 'a'.repeat(129) }, { workflowId: 'nope' }],
      extra: true,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((problem) => problem.path).sort()).toEqual([
      '/extra',
      '/tools/0/name',
      '/tools/1/name',
      '/tools/2/workflowId',
    ]);

    const duplicate = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/mcp-servers', {
      name: 'x',
      tools: [{ workflowId: greetId, name: 'same' }, { workflowId: otherId, name: 'same' }, { workflowId: '0123456789abcdef01234567' }],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.errors).toEqual([
      { path: '/tools/1/name', code: 'DUPLICATE_TOOL_NAME', message: 'tool name "same" is used twice in this server' },
      { path: '/tools/2/workflowId', code: 'UNKNOWN_WORKFLOW', message: 'workflow 0123456789abcdef01234567 does not exist' },
    ]);
    expect((await api(stack.apiUrl, 'PATCH', '/mcp-servers/0123456789abcdef01234567', { name: 'y' })).status).toBe(404);
    const empty = await api<{ errors: Problem[] }>(stack.apiUrl, 'PATCH', `/mcp-servers/0123456789abcdef01234567`, {});
    expect(empty.status).toBe(400);
  });

  it('refuses to delete a published workflow (409 WORKFLOW_PUBLISHED) until no server publishes it', async () => {
    const workflowId = await createGreetWorkflow(stack.apiUrl, 'to delete');
    const server = await publish(stack.apiUrl, { name: 'holder', tools: [{ workflowId }] });
    const refused = await api<{ code: string; message: string }>(stack.apiUrl, 'DELETE', `/workflows/${workflowId}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'WORKFLOW_PUBLISHED', message: expect.stringContaining(server.id) });
    expect((await api(stack.apiUrl, 'PATCH', `/mcp-servers/${server.id}`, { tools: [] })).status).toBe(200);
    expect((await api(stack.apiUrl, 'DELETE', `/workflows/${workflowId}`)).status).toBe(204);
  });
});
