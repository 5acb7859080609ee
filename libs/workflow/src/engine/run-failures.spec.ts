import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { createInMemoryRunStore } from './run-store.js';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow.js';
import {
  chain,
  createFakeToolbox,
  createRecordingClock,
  delay,
  edge,
  endNodeDef,
  fakeServices,
  field,
  literal,
  ref,
  startNodeDef,
  template,
  toolNode,
  type FakeToolbox,
} from './testing/fake-services.js';
import type { WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();

function runOptions(workflow: WorkflowDefinition, toolbox: FakeToolbox, extra: Partial<RunWorkflowOptions> = {}): RunWorkflowOptions {
  return {
    runId: `run-${Math.random()}`,
    workflow,
    inputs: {},
    registry,
    services: fakeServices(toolbox),
    store: createInMemoryRunStore(),
    ...extra,
  };
}

const failing = { handler: () => ({ isError: true, text: 'quota exceeded' }) };
const hanging = { handler: async ({ signal }: { signal: AbortSignal }) => (await delay(60_000, signal), {}) };

describe('runWorkflow failures', () => {
  it('routes a caught failure to the error handle, skips the normal path and exposes error.code', async () => {
    const toolbox = createFakeToolbox({ flaky: failing, next: { handler: () => ({ text: 'never' }) } });
    const workflow: WorkflowDefinition = {
      name: 'catch',
      nodes: [
        startNodeDef(),
        toolNode('risky', 'flaky', {}, { catchError: true }),
        toolNode('happy', 'next'),
        { id: 'report', type: 'template', config: {}, inputs: { text: template('{{risky.error.code}}: {{risky.error.message}}') } },
        endNodeDef({ report: ref('report.text'), code: ref('risky.error.code') }),
      ],
      edges: [
        edge('start', 'risky'),
        edge('risky', 'happy'),
        edge('risky', 'report', 'error'),
        edge('happy', 'end'),
        edge('report', 'end'),
      ],
    };
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { store });
    const outcome = await runWorkflow(options);
    expect(outcome).toMatchObject({
      status: 'succeeded',
      outputs: { report: 'MCP_TOOL_ERROR: quota exceeded', code: 'MCP_TOOL_ERROR' },
      stats: { nodesFailed: 1, nodesSkipped: 1 },
    });
    expect(store.records(options.runId).find((record) => record.nodeId === 'risky')).toMatchObject({
      status: 'failed',
      error: { code: 'MCP_TOOL_ERROR', message: 'quota exceeded' },
      details: { tool: 'flaky', isError: true },
      activeHandles: ['error'],
    });
    expect(toolbox.calls.map((call) => call.tool)).toEqual(['flaky']);
  });

  it('retries a failing node with its backoff, then succeeds; mayRepeat is set because the node retries', async () => {
    let attempts = 0;
    const toolbox = createFakeToolbox({ shaky: { handler: () => (++attempts < 3 ? { isError: true, text: 'busy' } : { text: 'fine' }) } });
    const clock = createRecordingClock();
    const workflow: WorkflowDefinition = {
      name: 'retry',
      nodes: [
        startNodeDef(),
        toolNode('shaky', 'shaky', {}, { retry: { maxAttempts: 3, backoffMs: 15 } }),
        endNodeDef({ text: ref('shaky.text') }),
      ],
      edges: chain('start', 'shaky', 'end'),
    };
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { store, services: fakeServices(toolbox, clock) });
    const outcome = await runWorkflow(options);
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { text: 'fine' } });
    expect(clock.sleeps.filter((ms) => ms === 15)).toHaveLength(2);
    expect(toolbox.calls.every((call) => call.mayRepeat === true)).toBe(true);
    expect(store.records(options.runId).find((record) => record.nodeId === 'shaky')).toMatchObject({ status: 'succeeded', attempt: 3 });
  });

  it('fails the run with the failing node code; nodes in flight are canceled and the rest never start', async () => {
    const toolbox = createFakeToolbox({
      boom: {
        handler: async () => {
          await delay(20);
          throw Object.assign(new Error('server gone'), { code: 'MCP_UNREACHABLE' });
        },
      },
      slow: hanging,
      after: {},
    });
    const workflow: WorkflowDefinition = {
      name: 'fail',
      nodes: [startNodeDef(), toolNode('boom', 'boom'), toolNode('slow', 'slow'), toolNode('after', 'after'), endNodeDef({})],
      edges: [edge('start', 'boom'), edge('start', 'slow'), edge('boom', 'after'), edge('slow', 'end'), edge('after', 'end')],
    };
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { store });
    const began = Date.now();
    const outcome = await runWorkflow(options);
    expect(Date.now() - began).toBeLessThan(1000);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'MCP_UNREACHABLE', message: 'server gone', nodeId: 'boom' },
      stats: { nodesFailed: 1 },
    });
    const statusOf = Object.fromEntries(store.records(options.runId).map((record) => [record.nodeId, record.status]));
    expect(statusOf).toEqual({ start: 'succeeded', boom: 'failed', slow: 'canceled' });
    expect(store.records(options.runId).find((record) => record.nodeId === 'slow')?.error?.code).toBe('RUN_CANCELED');
    expect(toolbox.calls.map((call) => call.tool).sort()).toEqual(['boom', 'slow']);
  });

  it('ends canceled when the host aborts mid-node, aborting the in-flight call', async () => {
    let seenAbort = false;
    const toolbox = createFakeToolbox({
      slow: {
        handler: async ({ signal }) => {
          signal.addEventListener('abort', () => (seenAbort = true));
          await delay(60_000, signal);
          return {};
        },
      },
    });
    const workflow: WorkflowDefinition = {
      name: 'cancel',
      nodes: [startNodeDef(), toolNode('slow', 'slow'), endNodeDef({})],
      edges: chain('start', 'slow', 'end'),
    };
    const host = new AbortController();
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { store, signal: host.signal });
    setTimeout(() => host.abort(), 30);
    const outcome = await runWorkflow(options);
    expect(outcome).toMatchObject({ status: 'canceled', error: { code: 'RUN_CANCELED' } });
    expect(seenAbort).toBe(true);
    expect(store.records(options.runId).map((record) => [record.nodeId, record.status])).toEqual([
      ['start', 'succeeded'],
      ['slow', 'canceled'],
    ]);
  });

  it('fails with RUN_DEADLINE_EXCEEDED when the run outlives its deadline, even if a node ignores its signal', async () => {
    const toolbox = createFakeToolbox({ stubborn: { handler: async () => (await delay(400), {}) } });
    const workflow: WorkflowDefinition = {
      name: 'deadline',
      nodes: [startNodeDef(), toolNode('stubborn', 'stubborn'), endNodeDef({})],
      edges: chain('start', 'stubborn', 'end'),
    };
    const began = Date.now();
    const outcome = await runWorkflow(runOptions(workflow, toolbox, { limits: { runDeadlineMs: 50 } }));
    expect(Date.now() - began).toBeLessThan(300);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'RUN_DEADLINE_EXCEEDED' } });
  });

  it("stops a map's items at the run's deadline (sub-graph runs arm no deadline of their own)", async () => {
    const toolbox = createFakeToolbox({ stubborn: { handler: async () => (await delay(400), {}) } });
    const body: WorkflowDefinition = {
      name: 'body',
      nodes: [startNodeDef(), toolNode('stubborn', 'stubborn'), endNodeDef({})],
      edges: chain('start', 'stubborn', 'end'),
    };
    const workflow: WorkflowDefinition = {
      name: 'map deadline',
      nodes: [
        startNodeDef(),
        { id: 'each', type: 'map', config: { body, concurrency: 2 }, inputs: { items: { value: [1, 2, 3, 4] } } },
        endNodeDef({}),
      ],
      edges: chain('start', 'each', 'end'),
    };
    const began = Date.now();
    const outcome = await runWorkflow(runOptions(workflow, toolbox, { limits: { runDeadlineMs: 50 } }));
    expect(Date.now() - began).toBeLessThan(300);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'RUN_DEADLINE_EXCEEDED' } });
  });

  it('times a node out after its timeoutMs and passes that budget to the tool call', async () => {
    const toolbox = createFakeToolbox({ slow: hanging });
    const workflow: WorkflowDefinition = {
      name: 'timeout',
      nodes: [startNodeDef(), toolNode('slow', 'slow', {}, { timeoutMs: 40 }), endNodeDef({})],
      edges: chain('start', 'slow', 'end'),
    };
    const outcome = await runWorkflow(runOptions(workflow, toolbox));
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'NODE_TIMEOUT', nodeId: 'slow' } });
    expect(toolbox.calls[0].timeoutMs).toBe(40);
  });

  it('stops at the maximum number of node executions', async () => {
    const toolbox = createFakeToolbox({ step: { handler: () => ({ text: 'x' }) } });
    const ids = Array.from({ length: 6 }, (_, index) => `n${index}`);
    const workflow: WorkflowDefinition = {
      name: 'long',
      nodes: [startNodeDef(), ...ids.map((id) => toolNode(id, 'step'))],
      edges: chain('start', ...ids),
    };
    const outcome = await runWorkflow(runOptions(workflow, toolbox, { limits: { maxNodeExecutions: 4 } }));
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'MAX_NODE_EXECUTIONS' }, stats: { nodesExecuted: 4 } });
    expect(toolbox.calls).toHaveLength(3);
  });

  it('caps the stored copy of big outputs with a flag while downstream nodes get the whole value', async () => {
    const big = 'x'.repeat(5_000);
    const toolbox = createFakeToolbox({ big: { handler: () => ({ text: big }) } });
    const workflow: WorkflowDefinition = {
      name: 'cap',
      nodes: [startNodeDef(), toolNode('big', 'big'), endNodeDef({ length: ref('big.text') })],
      edges: chain('start', 'big', 'end'),
    };
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { store, limits: { maxOutputBytes: 1_000 } });
    const outcome = await runWorkflow(options);
    expect((outcome.outputs.length as string).length).toBe(5_000);
    const record = store.records(options.runId).find((item) => item.nodeId === 'big');
    expect(record?.truncated).toBe(true);
    expect(JSON.stringify(record?.outputs).length).toBeLessThan(1_200);
    expect((record?.state?.outputs.text as string).length).toBe(5_000);
    expect(store.records(options.runId).find((item) => item.nodeId === 'end')).toMatchObject({ truncated: true, inputsTruncated: true });
  });

  it('fails with NODE_INPUT_INVALID and the input path when a resolved value does not fit its type', async () => {
    const toolbox = createFakeToolbox({
      count: { inputs: [field('n', 'integer', true)] },
      echo: { inputs: [field('text', 'string', true)] },
    });
    const byRef: WorkflowDefinition = {
      name: 'ref',
      nodes: [startNodeDef(), toolNode('count', 'count', { n: ref('start.n') }), endNodeDef({})],
      edges: chain('start', 'count', 'end'),
    };
    await expect(runWorkflow(runOptions(byRef, toolbox, { inputs: { n: 'seven' } }))).resolves.toMatchObject({
      status: 'failed',
      error: { code: 'NODE_INPUT_INVALID', nodeId: 'count', path: '/nodes/1/inputs/n' },
    });
    const byTemplate: WorkflowDefinition = {
      name: 'template',
      nodes: [startNodeDef(), toolNode('count', 'count', { n: template('{{start.n}}') }), endNodeDef({})],
      edges: chain('start', 'count', 'end'),
    };
    await expect(runWorkflow(runOptions(byTemplate, toolbox, { inputs: { n: 7 } }))).resolves.toMatchObject({
      error: { code: 'NODE_INPUT_INVALID', path: '/nodes/1/inputs/n' },
    });
    const missing: WorkflowDefinition = {
      name: 'missing',
      nodes: [startNodeDef(), toolNode('echo', 'echo', { text: ref('start.absent') }), endNodeDef({ x: literal(1) })],
      edges: chain('start', 'echo', 'end'),
    };
    await expect(runWorkflow(runOptions(missing, toolbox))).resolves.toMatchObject({
      error: { code: 'NODE_INPUT_INVALID', path: '/nodes/1/inputs/text' },
    });
    expect(toolbox.calls).toHaveLength(0);
  });
});
