import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { createInMemoryRunStore, type ExecutionRecord, type InMemoryRunStore, type RunStore } from './run-store.js';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow.js';
import {
  chain,
  createFakeToolbox,
  delay,
  edge,
  endNodeDef,
  fakeServices,
  literal,
  ref,
  startNodeDef,
  template,
  toolNode,
  type FakeToolbox,
} from './testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();

/** Persists like `inner` until `diesAt` matches a record: that save fails, as when the worker's database goes away. */
function crashingStore(inner: RunStore, diesAt: (record: ExecutionRecord) => boolean): RunStore {
  return {
    loadExecutions: (runId) => inner.loadExecutions(runId),
    saveExecution: async (record) => {
      if (diesAt(record)) throw Object.assign(new Error('connection lost'), { code: 'STORE_DOWN' });
      await inner.saveExecution(record);
    },
  };
}

function options(
  workflow: WorkflowDefinition,
  toolbox: FakeToolbox,
  store: RunStore,
  extra: Partial<RunWorkflowOptions> = {},
): RunWorkflowOptions {
  return { runId: 'run-resume', workflow, inputs: { n: 1 }, registry, services: fakeServices(toolbox), store, ...extra };
}

const callsOf = (toolbox: FakeToolbox, tool: string): number => toolbox.calls.filter((call) => call.tool === tool).length;
const statuses = (store: InMemoryRunStore): string[] =>
  store.records('run-resume').map((record) => `${record.seq} ${record.nodeId} ${record.status}`);

describe('runWorkflow resume', () => {
  const lineWorkflow: WorkflowDefinition = {
    name: 'line',
    nodes: [
      startNodeDef(),
      toolNode('first', 'first'),
      toolNode('second', 'second', { from: ref('first.result') }),
      endNodeDef({ first: ref('first.result'), second: ref('second.text') }),
    ],
    edges: chain('start', 'first', 'second', 'end'),
  };

  it('rejects when the store fails, then resumes without executing again the nodes that succeeded', async () => {
    const toolbox = createFakeToolbox({
      first: { handler: () => ({ text: '{"id":7}' }) },
      second: { handler: ({ arguments: args }) => ({ text: `got ${JSON.stringify(args.from)}` }) },
    });
    const store = createInMemoryRunStore();
    await expect(
      runWorkflow(
        options(
          lineWorkflow,
          toolbox,
          crashingStore(store, (record) => record.nodeId === 'second'),
        ),
      ),
    ).rejects.toMatchObject({ code: 'STORE_DOWN' });
    expect(statuses(store)).toEqual(['1 start succeeded', '2 first succeeded']);

    const outcome = await runWorkflow(options(lineWorkflow, toolbox, store));
    expect(outcome).toMatchObject({
      status: 'succeeded',
      outputs: { first: { id: 7 }, second: 'got {"id":7}' },
      stats: { nodesExecuted: 4 },
    });
    expect(callsOf(toolbox, 'first')).toBe(1);
    expect(callsOf(toolbox, 'second')).toBe(2);
    expect(statuses(store)).toEqual(['1 start succeeded', '2 first succeeded', '3 second succeeded', '4 end succeeded']);
  });

  it('runs again a node that was canceled in flight', async () => {
    const toolbox = createFakeToolbox({
      first: { handler: () => ({ text: '1' }) },
      second: { handler: async ({ signal }) => (await delay(callsOf(toolbox, 'second') === 1 ? 60_000 : 1, signal), { text: 'two' }) },
    });
    const store = createInMemoryRunStore();
    const host = new AbortController();
    setTimeout(() => host.abort(), 30);
    await expect(runWorkflow(options(lineWorkflow, toolbox, store, { signal: host.signal }))).resolves.toMatchObject({
      status: 'canceled',
    });
    const outcome = await runWorkflow(options(lineWorkflow, toolbox, store));
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { first: 1, second: 'two' } });
    expect(callsOf(toolbox, 'first')).toBe(1);
    expect(statuses(store)).toEqual([
      '1 start succeeded',
      '2 first succeeded',
      '3 second canceled',
      '4 second succeeded',
      '5 end succeeded',
    ]);
  });

  it('restores skipped branches and caught errors from persisted records', async () => {
    const toolbox = createFakeToolbox({ risky: { handler: () => ({ isError: true, text: 'nope' }) }, big: {} });
    const check: NodeDefinition = {
      id: 'check',
      type: 'condition',
      config: { branches: [{ id: 'big', when: { any: [{ left: ref('start.n'), op: 'gt', right: literal(5) }] } }] },
      inputs: {},
    };
    const workflow: WorkflowDefinition = {
      name: 'branches',
      nodes: [
        startNodeDef(),
        check,
        toolNode('big', 'big'),
        toolNode('risky', 'risky', {}, { catchError: true }),
        { id: 'report', type: 'template', config: {}, inputs: { text: template('caught {{risky.error.code}}') } },
        endNodeDef({ report: ref('report.text') }),
      ],
      edges: [
        edge('start', 'check'),
        edge('check', 'big', 'branch:big'),
        edge('check', 'risky', 'else'),
        edge('risky', 'report', 'error'),
        edge('big', 'end'),
        edge('report', 'end'),
      ],
    };
    const store = createInMemoryRunStore();
    await expect(
      runWorkflow(
        options(
          workflow,
          toolbox,
          crashingStore(store, (record) => record.nodeId === 'report'),
        ),
      ),
    ).rejects.toThrow('connection lost');
    expect(statuses(store)).toEqual(['1 start succeeded', '2 check succeeded', '3 big skipped', '4 risky failed']);

    const outcome = await runWorkflow(options(workflow, toolbox, store));
    expect(outcome).toMatchObject({
      status: 'succeeded',
      outputs: { report: 'caught MCP_TOOL_ERROR' },
      stats: { nodesSkipped: 1, nodesFailed: 1 },
    });
    expect(toolbox.calls.map((call) => call.tool)).toEqual(['risky']);
  });

  it('executes again a node whose outputs were too large to keep for resume', async () => {
    const toolbox = createFakeToolbox({ first: { handler: () => ({ text: 'y'.repeat(2_000) }) }, second: {} });
    const store = createInMemoryRunStore();
    const limits = { maxOutputBytes: 100, maxStateBytes: 1_000 };
    await expect(
      runWorkflow(
        options(
          lineWorkflow,
          toolbox,
          crashingStore(store, (record) => record.nodeId === 'second'),
          { limits },
        ),
      ),
    ).rejects.toThrow();
    expect(store.records('run-resume')[1]).toMatchObject({ nodeId: 'first', truncated: true, stateTooLarge: true });
    await expect(runWorkflow(options(lineWorkflow, toolbox, store, { limits }))).resolves.toMatchObject({ status: 'succeeded' });
    expect(callsOf(toolbox, 'first')).toBe(2);
  });
});
