import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  allLogs,
  createWorkflow,
  expectNoSessions,
  registerToolset,
  runToEnd,
  startRunStack,
  waitForRun,
  type Problem,
} from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

/** Adds one to `n`, counting its calls by `n`; fails for the values in `failFor`. */
function countingTool() {
  const state = { calls: [] as number[], failFor: new Set<number>() };
  const tool: FixtureTool = {
    name: 'inc',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    handler: ({ n }) => {
      const value = Number(n);
      state.calls.push(value);
      if (state.failFor.has(value)) return { isError: true, content: [{ type: 'text', text: `no inc for ${value}` }] };
      return { content: [{ type: 'text', text: String(value + 1) }] };
    },
  };
  return { tool, state };
}

/** start → one → two → three → end: three MCP calls in a line. */
function threeCalls(toolsetId: string) {
  const call = (id: string, from: string) => ({ id, type: 'mcpTool', config: { toolsetId, tool: 'inc' }, inputs: { n: { ref: from } } });
  return {
    name: 'three calls',
    inputSchema: {
      type: 'object',
      properties: { n: { type: 'number' }, token: { type: 'string', writeOnly: true } },
      required: ['n'],
    },
    nodes: [
      { id: 'start', type: 'start' },
      call('one', 'start.n'),
      call('two', 'one.result'),
      call('three', 'two.result'),
      { id: 'end', type: 'end', inputs: { total: { ref: 'three.result' } } },
    ],
    edges: [
      { source: 'start', target: 'one' },
      { source: 'one', target: 'two' },
      { source: 'two', target: 'three' },
      { source: 'three', target: 'end' },
    ],
  };
}

type ReplayAnswer = RunView & { code?: string; message?: string; errors?: Problem[] };

describe('replay: a new run from a node, the upstream outputs taken from the earlier run', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let toolsetId: string;
  const inc = countingTool();
  const replay = (runId: string, body: Record<string, unknown>, query = '?wait=20000') =>
    api<ReplayAnswer>(stack.apiUrl, 'POST', `/runs/${runId}/replay${query}`, body);

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: [inc.tool] });
    toolsetId = await registerToolset(stack.apiUrl, fixture.url);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it('replays from the second of three MCP nodes: two calls made, the first logged as replayed, replayOf set', async () => {
    const workflowId = await createWorkflow(stack.apiUrl, threeCalls(toolsetId));
    const first = await runToEnd(stack.apiUrl, workflowId, { n: 1, token: 's3cret' });
    expect(first).toMatchObject({ status: 'succeeded', outputs: { total: 4 } });
    inc.state.calls.length = 0;
    const res = await replay(first.id, { fromNodeId: 'two' });
    expect([200, 202]).toContain(res.status);
    const run = res.status === 200 ? res.body : await waitForRun(stack.apiUrl, res.body.id);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { total: 4 }, replayOf: first.id, version: first.version });
    // The secret input is not carried over; the others are.
    expect(run.inputs).toEqual({ n: 1 });
    expect(inc.state.calls).toEqual([2, 3]);
    const logs = await allLogs(stack.apiUrl, run.id);
    const byNode = Object.fromEntries(logs.map((item) => [item.nodeId, item]));
    expect(byNode.one).toMatchObject({ status: 'succeeded', replayed: true, outputs: { result: 2 } });
    expect(byNode.two.replayed).toBeUndefined();
    expect(byNode.three).toMatchObject({ status: 'succeeded', outputs: { result: 4 } });
    expect(logs.filter((item) => item.nodeId === 'one')).toHaveLength(1);
    await expectNoSessions(fixture);
  }, 60_000);

  it('replays a failed run from the node it failed at, with new inputs for start', async () => {
    const workflowId = await createWorkflow(stack.apiUrl, threeCalls(toolsetId));
    inc.state.failFor = new Set([3]);
    const failed = await runToEnd(stack.apiUrl, workflowId, { n: 1 });
    expect(failed).toMatchObject({ status: 'failed', error: { nodeId: 'three' } });
    inc.state.failFor.clear();
    inc.state.calls.length = 0;
    const res = await replay(failed.id, { fromNodeId: 'three', inputs: { n: 10 } });
    const run = res.status === 200 ? res.body : await waitForRun(stack.apiUrl, res.body.id);
    // one and two are not executed: three reads two's recorded output (3), whatever start now says.
    expect(run).toMatchObject({ status: 'succeeded', outputs: { total: 4 }, inputs: { n: 10 }, replayOf: failed.id });
    expect(inc.state.calls).toEqual([3]);
  }, 60_000);

  it('replays on a newer version when the nodes upstream are unchanged there; names the changed ones otherwise (409)', async () => {
    const definition = threeCalls(toolsetId);
    const workflowId = await createWorkflow(stack.apiUrl, definition);
    const first = await runToEnd(stack.apiUrl, workflowId, { n: 1 });
    expect(first).toMatchObject({ status: 'succeeded', outputs: { total: 4 }, version: 1 });
    // v2: three reads one's result instead of two's; one and two are as they were.
    const v2 = structuredClone(definition);
    v2.nodes[3].inputs = { n: { ref: 'one.result' } };
    expect((await api(stack.apiUrl, 'PUT', `/workflows/${workflowId}`, v2)).status).toBe(200);
    inc.state.calls.length = 0;
    const res = await replay(first.id, { fromNodeId: 'three', version: 2 });
    const run = res.status === 200 ? res.body : await waitForRun(stack.apiUrl, res.body.id);
    expect(run).toMatchObject({ status: 'succeeded', version: 2, outputs: { total: 3 }, replayOf: first.id });
    expect(inc.state.calls).toEqual([2]);
    // v3 changes one: a replay from two on it would feed two an output v3 does not make.
    const v3 = structuredClone(v2);
    (v3.nodes as Record<string, unknown>[])[1] = { ...v3.nodes[1], retry: { maxAttempts: 2, backoffMs: 0 } };
    expect((await api(stack.apiUrl, 'PUT', `/workflows/${workflowId}`, v3)).status).toBe(200);
    const refused = await replay(first.id, { fromNodeId: 'two', version: 3 });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'UPSTREAM_CHANGED', errors: [{ path: '/version', code: 'UPSTREAM_CHANGED' }] });
    expect(refused.body.message).toContain('"one"');
    expect((await replay(first.id, { fromNodeId: 'two', version: 9 })).status).toBe(404);
  }, 60_000);

  it('refuses an unknown node (400), a node the run did not reach (409) and a run not finished (409), with the path', async () => {
    const workflowId = await createWorkflow(stack.apiUrl, threeCalls(toolsetId));
    inc.state.failFor = new Set([1]);
    const failed = await runToEnd(stack.apiUrl, workflowId, { n: 1 });
    inc.state.failFor.clear();
    expect(failed.status).toBe('failed');
    const unknown = await replay(failed.id, { fromNodeId: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '/fromNodeId', code: 'REF_UNKNOWN_NODE' }] });
    const notReached = await replay(failed.id, { fromNodeId: 'three' });
    expect(notReached.status).toBe(409);
    expect(notReached.body).toMatchObject({ code: 'NODE_NOT_REACHED', errors: [{ path: '/fromNodeId', code: 'NODE_NOT_REACHED' }] });
    const badBody = await replay(failed.id, { fromNodeId: 'one', extra: true });
    expect(badBody.status).toBe(400);
    const waiting = await createWorkflow(stack.apiUrl, {
      name: 'waits',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'ask', type: 'approval', config: { message: 'go?' } },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'ask' },
        { source: 'ask', sourceHandle: 'approved', target: 'end' },
      ],
    });
    const started = await api<RunView>(stack.apiUrl, 'POST', `/workflows/${waiting}/runs`, { inputs: {} });
    await waitForRun(stack.apiUrl, started.body.id, 15_000, (run) => run.status === 'waiting');
    const unfinished = await replay(started.body.id, { fromNodeId: 'ask' });
    expect(unfinished.status).toBe(409);
    expect(unfinished.body.code).toBe('RUN_NOT_FINISHED');
    expect((await replay('0123456789abcdef01234567', { fromNodeId: 'one' })).status).toBe(404);
  }, 60_000);
});
