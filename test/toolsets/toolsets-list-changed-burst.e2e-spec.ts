import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface Change {
  source: string;
  added: string[];
  removed: string[];
  changed: string[];
}
interface WorkflowView {
  problems: { path: string; code: string }[];
}

const BURST = 5;
const empty = { type: 'object', properties: {} };

/**
 * `drop-echo` removes `echo` and announces it BURST times in a row (one burst); `grow` adds a tool
 * and announces it once — the marker that tells the test the burst's refreshes are all behind it.
 */
function shrinkingTools(): FixtureTool[] {
  const tools = basicTools();
  tools.push(
    {
      name: 'drop-echo',
      inputSchema: empty,
      handler: async (_args, context) => {
        tools.splice(
          tools.findIndex((tool) => tool.name === 'echo'),
          1,
        );
        for (let sent = 0; sent < BURST; sent++) await context.toolsChanged();
        return { content: [{ type: 'text', text: 'echo dropped' }] };
      },
    },
    {
      name: 'grow',
      inputSchema: empty,
      handler: async (_args, context) => {
        tools.push({ name: 'grown', inputSchema: empty, handler: () => ({ content: [{ type: 'text', text: 'grown' }] }) });
        await context.toolsChanged();
        return { content: [{ type: 'text', text: 'grew' }] };
      },
    },
  );
  return tools;
}

describe('a burst of notifications/tools/list_changed', () => {
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([startRunStack(), startFixtureServer({ tools: shrinkingTools() })]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  const changes = async (id: string) => (await api<{ items: Change[] }>(stack.apiUrl, 'GET', `/toolsets/${id}/changes`)).body.items;
  const changesUntil = async (id: string, count: number) => {
    const deadline = Date.now() + 15_000;
    for (let items = await changes(id); ; items = await changes(id)) {
      if (items.length >= count) return items;
      if (Date.now() > deadline) throw new Error(`still ${items.length} change(s) of ${count}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const call = async (id: string, tool: string) =>
    expect((await api(stack.apiUrl, 'POST', `/toolsets/${id}/tools/${tool}/call`, { arguments: {} })).status).toBe(200);

  it('is one refresh and one history entry, and the workflow whose tool went away shows the problem', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    expect(server.listings()).toBe(1);
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'uses echo',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId: id, tool: 'echo' }, inputs: { message: { value: 'hi' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    });
    expect((await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${workflowId}`)).body.problems).toEqual([]);

    await call(id, 'drop-echo');
    expect(await changesUntil(id, 1)).toEqual([
      expect.objectContaining({ source: 'list_changed', added: [], removed: ['echo'], changed: [] }),
    ]);
    const view = await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${workflowId}`);
    expect(view.body.problems).toEqual([expect.objectContaining({ path: '/nodes/1/config/tool', code: 'UNKNOWN_TOOL' })]);

    // A later, single notification: once its entry is in, any refresh the burst could have queued has run before it.
    await call(id, 'grow');
    const [latest, ...earlier] = await changesUntil(id, 2);
    expect(earlier).toHaveLength(1);
    expect(latest).toMatchObject({ source: 'list_changed', added: ['grown'] });
    // create, the burst's one refresh, the marker's one.
    expect(server.listings()).toBe(3);
  });
});
