import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, runToEnd, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface Change {
  id: string;
  at: string;
  source: string;
  added: string[];
  removed: string[];
  changed: string[];
}

/** A tool that adds a tool to its own server and announces it (three times: one burst). */
function growingTools(): FixtureTool[] {
  const tools = basicTools();
  let grown = 0;
  tools.push({
    name: 'grow',
    description: 'Adds a tool, then sends notifications/tools/list_changed three times.',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, context) => {
      grown++;
      const name = `grown-${grown}`;
      tools.push({ name, inputSchema: { type: 'object', properties: {} }, handler: () => ({ content: [{ type: 'text', text: name }] }) });
      for (let burst = 0; burst < 3; burst++) await context.toolsChanged();
      return { content: [{ type: 'text', text: `added ${name}` }] };
    },
  });
  return tools;
}

async function changesUntil(apiUrl: string, id: string, count: number): Promise<Change[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api<{ items: Change[] }>(apiUrl, 'GET', `/toolsets/${id}/changes`);
    if (res.body.items.length >= count) return res.body.items;
    if (Date.now() > deadline) throw new Error(`still ${res.body.items.length} change(s) of ${count}: ${JSON.stringify(res.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('live tool changes: notifications/tools/list_changed', () => {
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([startRunStack(), startFixtureServer({ tools: growingTools() })]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('a notification inside a run, then one on an ad-hoc call, each refresh the snapshot and land in the history', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    expect((await api(stack.apiUrl, 'GET', `/toolsets/${id}/changes`)).body).toEqual({ items: [], nextCursor: null });
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'grow the server',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'grow', type: 'mcpTool', config: { toolsetId: id, tool: 'grow' }, inputs: {} },
        { id: 'end', type: 'end', inputs: { said: { ref: 'grow.text' } } },
      ],
      edges: [
        { source: 'start', target: 'grow' },
        { source: 'grow', target: 'end' },
      ],
    });
    expect(await runToEnd(stack.apiUrl, workflowId)).toMatchObject({ status: 'succeeded', outputs: { said: 'added grown-1' } });
    const [first] = await changesUntil(stack.apiUrl, id, 1);
    expect(first).toMatchObject({ source: 'list_changed', added: ['grown-1'], removed: [], changed: [] });
    const toolset = await api<{ tools: { name: string }[] }>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    expect(toolset.body.tools.map((tool) => tool.name)).toContain('grown-1');

    expect((await api(stack.apiUrl, 'POST', `/toolsets/${id}/tools/grow/call`, { arguments: {} })).status).toBe(200);
    const [second, again] = await changesUntil(stack.apiUrl, id, 2);
    expect(second).toMatchObject({ source: 'list_changed', added: ['grown-2'] });
    expect(again.id).toBe(first.id);

    const paged = await api<{ items: Change[]; nextCursor: string }>(stack.apiUrl, 'GET', `/toolsets/${id}/changes?limit=1`);
    expect(paged.body.items.map((item) => item.id)).toEqual([second.id]);
    const next = await api<{ items: Change[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      `/toolsets/${id}/changes?limit=1&cursor=${paged.body.nextCursor}`,
    );
    expect(next.body).toEqual({ items: [expect.objectContaining({ id: first.id })], nextCursor: null });
    expect((await api(stack.apiUrl, 'GET', '/toolsets/000000000000000000000000/changes')).status).toBe(404);
  });
});
