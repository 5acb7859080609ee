import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface WorkflowView {
  version: number;
  problems: { path: string; code: string; message: string }[];
}

describe('GET /workflows/:id problems: tools that changed since the workflow was saved', () => {
  const tools: FixtureTool[] = basicTools();
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([startRunStack({}, { worker: false }), startFixtureServer({ tools })]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('reports a tool that disappeared and a new required input after a refresh, and none before', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo and add',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId: id, tool: 'echo' }, inputs: { message: { value: 'hi' } } },
        { id: 'add', type: 'mcpTool', config: { toolsetId: id, tool: 'add' }, inputs: { a: { value: 1 }, b: { value: 2 } } },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'add' },
        { source: 'add', target: 'end' },
      ],
    });
    expect((await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${workflowId}`)).body.problems).toEqual([]);

    // The server drops `echo` and gives `add` a new required input; a refresh takes the new snapshot.
    tools.splice(
      tools.findIndex((tool) => tool.name === 'echo'),
      1,
    );
    const add = tools.find((tool) => tool.name === 'add') as FixtureTool;
    add.inputSchema = {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' }, c: { type: 'number' } },
      required: ['a', 'b', 'c'],
    };
    const refreshed = await api<{ removed: string[]; changed: string[] }>(stack.apiUrl, 'POST', `/toolsets/${id}/refresh`);
    expect(refreshed.body).toMatchObject({ removed: ['echo'], changed: ['add'] });

    const view = await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${workflowId}`);
    expect(view.status).toBe(200);
    expect(view.body.version).toBe(1);
    expect(view.body.problems.map((problem) => `${problem.code} ${problem.path}`).sort()).toEqual([
      'MISSING_REQUIRED_INPUT /nodes/2/inputs/c',
      'UNKNOWN_TOOL /nodes/1/config/tool',
    ]);
  });
});
