import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { LogItem, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, registerToolset, startRun, startRunStack, waitForRun, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

const incTool: FixtureTool = {
  name: 'inc',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  handler: ({ n }) => ({ content: [{ type: 'text', text: String(Number(n) + 1) }] }),
};

/** start → workflow(calls) → end {result: call.<output>}. */
function caller(name: string, workflowId: string, output: string, inputs: Record<string, unknown> = {}) {
  return {
    name,
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'call', type: 'workflow', config: { workflowId }, inputs },
      { id: 'end', type: 'end', inputs: { result: { ref: `call.${output}` } } },
    ],
    edges: [
      { source: 'start', target: 'call' },
      { source: 'call', target: 'end' },
    ],
  };
}

async function runsOf(apiUrl: string, parentRunId: string): Promise<RunView[]> {
  const res = await api<{ items: RunView[] }>(apiUrl, 'GET', `/runs?parentRunId=${parentRunId}`);
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('workflow node: another workflow called as a run of its own', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let toolsetId: string;

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: [incTool] });
    toolsetId = await registerToolset(stack.apiUrl, fixture.url);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it("runs the child as a linked run and goes on with its end outputs; the parent's log names the child", async () => {
    const child = await createWorkflow(stack.apiUrl, {
      name: 'add one',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'inc', type: 'mcpTool', config: { toolsetId, tool: 'inc' }, inputs: { n: { ref: 'start.n' } } },
        { id: 'end', type: 'end', inputs: { total: { ref: 'inc.result' } } },
      ],
      edges: [
        { source: 'start', target: 'inc' },
        { source: 'inc', target: 'end' },
      ],
    });
    const parent = await createWorkflow(stack.apiUrl, caller('calls add one', child, 'total', { n: { ref: 'start.n' } }));
    // The child's version is pinned at save: a later version of the child does not change what the parent runs.
    const saved = await api<{ nodes: { config: Record<string, unknown> }[] }>(stack.apiUrl, 'GET', `/workflows/${parent}`);
    expect(saved.body.nodes[1].config).toEqual({ workflowId: child, version: 1 });
    const started = await startRun(stack.apiUrl, parent, { inputs: { n: 41 } });
    const run = await waitForRun(stack.apiUrl, started.body.id, 30_000);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { result: 42 }, parentRunId: null, source: 'api' });
    const [childRun] = await runsOf(stack.apiUrl, run.id);
    expect(childRun).toMatchObject({
      workflowId: child,
      source: 'workflow',
      status: 'succeeded',
      parentRunId: run.id,
      inputs: { n: 41 },
      outputs: { total: 42 },
    });
    const calls = (await allLogs(stack.apiUrl, run.id)).filter((item: LogItem) => item.nodeId === 'call');
    expect(calls.at(-1)).toMatchObject({ status: 'succeeded', childRunId: childRun.id, outputs: { total: 42 } });
    // Typed by the child at save: a literal of the wrong type, a required input left out, an output
    // the child's end does not give.
    const bad = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', caller('bad', child, 'sum', { n: { value: 'x' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((problem) => `${problem.code} ${problem.path}`)).toEqual(
      expect.arrayContaining(['TYPE_MISMATCH /nodes/1/inputs/n', 'REF_UNKNOWN_OUTPUT /nodes/2/inputs/result']),
    );
    const unmapped = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', caller('unmapped', child, 'total'));
    expect(unmapped.body.errors).toContainEqual(expect.objectContaining({ code: 'MISSING_REQUIRED_INPUT', path: '/nodes/1/inputs/n' }));
    // What only the run can tell (the parent's optional n left out) fails the node, naming the problem.
    const failed = await waitForRun(stack.apiUrl, (await startRun(stack.apiUrl, parent, { inputs: {} })).body.id, 30_000);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'NODE_INPUT_INVALID', nodeId: 'call' } });
  }, 90_000);

  it('cancels a chain of three sub-workflows from the top: all three canceled, no child left running', async () => {
    const bottom = await createWorkflow(stack.apiUrl, {
      name: 'bottom waits',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'pause', type: 'wait', inputs: { durationMs: { value: 600_000 } } },
        { id: 'end', type: 'end', inputs: { at: { ref: 'pause.resumedAt' } } },
      ],
      edges: [
        { source: 'start', target: 'pause' },
        { source: 'pause', target: 'end' },
      ],
    });
    const middle = await createWorkflow(stack.apiUrl, caller('middle', bottom, 'at'));
    const top = await createWorkflow(stack.apiUrl, caller('top', middle, 'result'));
    const started = await startRun(stack.apiUrl, top, { inputs: {} });
    const chain: RunView[] = [];
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [middleRun] = await runsOf(stack.apiUrl, started.body.id);
      const [bottomRun] = middleRun ? await runsOf(stack.apiUrl, middleRun.id) : [];
      if (bottomRun?.status === 'waiting') {
        chain.push(middleRun, bottomRun);
        break;
      }
      if (Date.now() > deadline) throw new Error('the bottom run of the chain did not start waiting in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await waitForRun(stack.apiUrl, started.body.id, 10_000, (run) => run.status === 'waiting')).status).toBe('waiting');
    const canceled = await api<RunView>(stack.apiUrl, 'POST', `/runs/${started.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    for (const run of [started.body, ...chain]) {
      expect((await waitForRun(stack.apiUrl, run.id, 20_000)).status).toBe('canceled');
    }
  }, 90_000);

  it('refuses at save a workflow that calls itself or an unknown workflow; a chain too deep fails at run', async () => {
    const a = await createWorkflow(stack.apiUrl, {
      name: 'a',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: { x: { value: 1 } } },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    const self = await api<{ errors: Problem[] }>(stack.apiUrl, 'PUT', `/workflows/${a}`, caller('a', a, 'x'));
    expect(self.status).toBe(400);
    expect(self.body.errors).toContainEqual(expect.objectContaining({ path: '/nodes/1/config/workflowId', code: 'CYCLE' }));
    const unknown = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', caller('u', '0123456789abcdef01234567', 'x'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toContainEqual(expect.objectContaining({ path: '/nodes/1/config/workflowId', code: 'UNKNOWN_WORKFLOW' }));
    // b calls a; a calling b back is an indirect cycle, visible at save.
    const b = await createWorkflow(stack.apiUrl, caller('b', a, 'x'));
    const back = await api<{ errors: Problem[] }>(stack.apiUrl, 'PUT', `/workflows/${a}`, caller('a', b, 'result'));
    expect(back.status).toBe(400);
    expect(back.body.errors).toContainEqual(expect.objectContaining({ path: '/nodes/1/config/workflowId', code: 'CYCLE' }));
    // Seven levels of distinct workflows: the sixth child is past the depth limit (5).
    let deepest = await createWorkflow(stack.apiUrl, {
      name: 'leaf',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: { result: { value: 'leaf' } } },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    for (let level = 0; level < 6; level += 1) deepest = await createWorkflow(stack.apiUrl, caller(`level ${level}`, deepest, 'result'));
    const run = await waitForRun(stack.apiUrl, (await startRun(stack.apiUrl, deepest, { inputs: {} })).body.id, 60_000);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'WORKFLOW_DEPTH_EXCEEDED', nodeId: 'call' } });
  }, 120_000);
});
