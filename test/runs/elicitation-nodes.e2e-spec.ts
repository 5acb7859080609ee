import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  basicTools,
  greetTool,
  startFixtureServer,
  startStatelessFixtureServer,
  type FixtureServer,
  type StatelessFixtureServer,
} from '#mcp/testing';
import type { LogItem } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, registerToolset, runToEnd, startRunStack, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

/** mcpTool nodes answer a tool's request for input as they declare: fixed values, defaults, or decline. */
describe('runs: elicitation answered by the node', () => {
  let stack: TestStack;
  let session: FixtureServer;
  let stateless: StatelessFixtureServer;

  beforeAll(async () => {
    stack = await startRunStack();
    session = await startFixtureServer({ tools: [...basicTools(), greetTool] });
    stateless = await startStatelessFixtureServer({ tools: [...basicTools(), greetTool] });
  });
  afterAll(async () => {
    await stack.close();
    await Promise.all([session.close(), stateless.close()]);
  });

  const greeter = (toolsetId: string, id: string, elicitation?: unknown) => ({
    id,
    type: 'mcpTool',
    config: { toolsetId, tool: 'greet', ...(elicitation === undefined ? {} : { elicitation }) },
    inputs: {},
  });

  it.each([
    ['2025-11-25 session server (elicitation/create)', () => session.url],
    ['2026-07-28 stateless server (input_required)', () => stateless.url],
  ])('%s: answer, defaults and decline, side by side in one run', async (kind, url) => {
    const toolsetId = await registerToolset(stack.apiUrl, url(), `greeter ${kind}`);
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: `greetings over ${kind}`,
      nodes: [
        { id: 'start', type: 'start' },
        greeter(toolsetId, 'answered', { answer: { name: 'Lin', times: 1 } }),
        greeter(toolsetId, 'defaults', 'defaults'),
        greeter(toolsetId, 'declined'),
        { id: 'end', type: 'end', inputs: { a: { ref: 'answered.text' }, d: { ref: 'defaults.text' }, n: { ref: 'declined.text' } } },
      ],
      edges: [
        { source: 'start', target: 'answered' },
        { source: 'start', target: 'defaults' },
        { source: 'start', target: 'declined' },
        { source: 'answered', target: 'end' },
        { source: 'defaults', target: 'end' },
        { source: 'declined', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, workflowId);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { a: 'Hello Lin', d: 'Hello Ada', n: 'no greeting (decline)' } });
    const logs = Object.fromEntries(
      (await allLogs(stack.apiUrl, run.id)).map((item: LogItem) => [item.nodeId, item as LogItem & { elicitations?: unknown }]),
    );
    expect(logs.answered.elicitations).toEqual([{ message: 'Who should be greeted?', action: 'accept' }]);
    expect(logs.declined.elicitations).toEqual([{ message: 'Who should be greeted?', action: 'decline' }]);
  });

  it('refuses an elicitation policy it does not know, at save time, with its path', async () => {
    const toolsetId = await registerToolset(stack.apiUrl, session.url, 'greeter for validation');
    const res = await api<{ code: string; errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', {
      name: 'pausing greeter',
      nodes: [{ id: 'start', type: 'start' }, greeter(toolsetId, 'greet', 'pause')],
      edges: [{ source: 'start', target: 'greet' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/nodes/1/config/elicitation', code: 'INVALID_CONFIG' })]);
  });
});
