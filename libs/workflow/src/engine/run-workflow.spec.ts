import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import type { RunEvent } from './run-events.js';
import { createInMemoryRunStore } from './run-store.js';
import { runWorkflow, type RunWorkflowOptions } from './run-workflow.js';
import {
  chain,
  createFakeToolbox,
  delay,
  edge,
  endNodeDef,
  field,
  literal,
  ref,
  startNodeDef,
  template,
  toolNode,
  type FakeToolbox,
} from './testing/fake-services.js';
import { fakeServices } from './testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from './types.js';

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

function condition(id: string, left: string, threshold: number): NodeDefinition {
  return {
    id,
    type: 'condition',
    config: { branches: [{ id: 'big', when: { all: [{ left: ref(left), op: 'gt', right: literal(threshold) }] } }] },
    inputs: {},
  };
}

describe('runWorkflow', () => {
  it('runs a line of nodes, resolving references and templates, and returns the end node inputs', async () => {
    const toolbox = createFakeToolbox({
      lookup: {
        inputs: [field('name', 'string', true)],
        handler: ({ arguments: args }) => ({ text: JSON.stringify({ greeting: `hello ${args.name}`, tags: ['a', 'b'] }) }),
      },
    });
    const workflow: WorkflowDefinition = {
      name: 'line',
      nodes: [
        startNodeDef(),
        toolNode('lookup', 'lookup', { name: ref('start.name') }),
        {
          id: 'say',
          type: 'template',
          config: {},
          inputs: { text: template('{{lookup.result.greeting}}! tags={{lookup.result.tags}} second={{lookup.result.tags[1]}}') },
        },
        endNodeDef({ text: ref('say.text'), isError: ref('lookup.isError') }),
      ],
      edges: chain('start', 'lookup', 'say', 'end'),
    };
    const events: RunEvent[] = [];
    const store = createInMemoryRunStore();
    const redact = (inputs: Record<string, unknown>): Record<string, unknown> => ('name' in inputs ? { ...inputs, name: '***' } : inputs);
    const options = runOptions(workflow, toolbox, { inputs: { name: 'Ada' }, store, redact, onEvent: (event) => events.push(event) });
    const outcome = await runWorkflow(options);
    expect(outcome).toMatchObject({
      status: 'succeeded',
      outputs: { text: 'hello Ada! tags=["a","b"] second=b', isError: false },
      stats: { nodesExecuted: 4, nodesSkipped: 0, nodesFailed: 0 },
    });
    expect(events[0].type).toBe('run.started');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: { status: 'succeeded' } });
    expect(events.filter((event) => event.type === 'node.started')).toHaveLength(4);
    const records = store.records(options.runId);
    expect(records.map((record) => [record.seq, record.nodeId, record.status])).toEqual([
      [1, 'start', 'succeeded'],
      [2, 'lookup', 'succeeded'],
      [3, 'say', 'succeeded'],
      [4, 'end', 'succeeded'],
    ]);
    expect(records[1]).toMatchObject({
      type: 'mcpTool',
      attempt: 1,
      inputs: { name: '***' },
      details: { toolsetId: 'tools', tool: 'lookup', transport: 'streamable-http', sessionReused: false, isError: false },
    });
    expect(toolbox.calls[0].arguments).toEqual({ name: 'Ada' });
    expect(records[1].finishedAt - records[1].startedAt).toBe(records[1].durationMs);
    expect(
      events.filter((event) => event.type === 'node.finished').map((event) => event.type === 'node.finished' && event.record.nodeId),
    ).toEqual(['start', 'lookup', 'say', 'end']);
  });

  it('takes one branch, skips the other and propagates the skip through a join that still runs', async () => {
    const toolbox = createFakeToolbox({});
    const say = (id: string, text: string): NodeDefinition => ({ id, type: 'template', config: {}, inputs: { text: template(text) } });
    const workflow: WorkflowDefinition = {
      name: 'branches',
      nodes: [
        startNodeDef(),
        condition('check', 'start.n', 10),
        say('big', 'big'),
        say('afterBig', 'after {{big.text}}'),
        say('small', 'small'),
        say('join', 'join: {{afterBig.text}}{{small.text}}'),
        endNodeDef({ text: ref('join.text'), big: ref('afterBig.text') }),
      ],
      edges: [
        edge('start', 'check'),
        edge('check', 'big', 'branch:big'),
        edge('big', 'afterBig'),
        edge('check', 'small', 'else'),
        edge('afterBig', 'join'),
        edge('small', 'join'),
        edge('join', 'end'),
      ],
    };
    const store = createInMemoryRunStore();
    const options = runOptions(workflow, toolbox, { inputs: { n: 3 }, store });
    const outcome = await runWorkflow(options);
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { text: 'join: small' }, stats: { nodesExecuted: 5, nodesSkipped: 2 } });
    expect(outcome.outputs).not.toHaveProperty('big');
    const statusOf = Object.fromEntries(store.records(options.runId).map((record) => [record.nodeId, record.status]));
    expect(statusOf).toEqual({
      start: 'succeeded',
      check: 'succeeded',
      big: 'skipped',
      afterBig: 'skipped',
      small: 'succeeded',
      join: 'succeeded',
      end: 'succeeded',
    });
    expect(store.records(options.runId).find((record) => record.nodeId === 'check')).toMatchObject({
      outputs: { branch: 'else' },
      activeHandles: ['else'],
    });
  });

  it('skips a node whose every incoming edge is skipped, and everything after it', async () => {
    const toolbox = createFakeToolbox({});
    const workflow: WorkflowDefinition = {
      name: 'all skipped',
      nodes: [
        startNodeDef(),
        condition('check', 'start.n', 10),
        { id: 'a', type: 'template', config: {}, inputs: { text: literal('a') } },
        endNodeDef({ a: ref('a.text') }),
      ],
      edges: [edge('start', 'check'), edge('check', 'a', 'branch:big'), edge('a', 'end')],
    };
    const outcome = await runWorkflow(runOptions(workflow, toolbox, { inputs: { n: 1 } }));
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: {}, stats: { nodesExecuted: 2, nodesSkipped: 2 } });
  });

  it('runs independent slow tool nodes concurrently: two parallel branches take about the time of one', async () => {
    const toolbox = createFakeToolbox({ slow: { handler: async ({ signal }) => (await delay(200, signal), { text: 'done' }) } });
    const workflow: WorkflowDefinition = {
      name: 'parallel',
      nodes: [
        startNodeDef(),
        toolNode('left', 'slow'),
        toolNode('right', 'slow'),
        endNodeDef({ left: ref('left.text'), right: ref('right.text') }),
      ],
      edges: [edge('start', 'left'), edge('start', 'right'), edge('left', 'end'), edge('right', 'end')],
    };
    const began = Date.now();
    const outcome = await runWorkflow(runOptions(workflow, toolbox));
    const elapsed = Date.now() - began;
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { left: 'done', right: 'done' } });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(380);
  });

  it('never runs more nodes at once than the concurrency limit', async () => {
    let running = 0;
    let peak = 0;
    const toolbox = createFakeToolbox({
      work: {
        handler: async ({ signal }) => {
          running += 1;
          peak = Math.max(peak, running);
          await delay(20, signal);
          running -= 1;
          return { text: 'ok' };
        },
      },
    });
    const workers = Array.from({ length: 8 }, (_, index) => toolNode(`w${index}`, 'work'));
    const workflow: WorkflowDefinition = {
      name: 'fan-out',
      nodes: [startNodeDef(), ...workers, endNodeDef({})],
      edges: workers.flatMap((worker) => [edge('start', worker.id), edge(worker.id, 'end')]),
    };
    const outcome = await runWorkflow(runOptions(workflow, toolbox, { limits: { concurrency: 3 } }));
    expect(outcome.status).toBe('succeeded');
    expect(toolbox.calls).toHaveLength(8);
    expect(peak).toBe(3);
  });

  it('refuses a structurally invalid workflow before running anything', async () => {
    const toolbox = createFakeToolbox({ any: {} });
    const workflow: WorkflowDefinition = {
      name: 'cycle',
      nodes: [startNodeDef(), toolNode('a', 'any'), toolNode('b', 'any')],
      edges: [edge('start', 'a'), ...chain('a', 'b', 'a')],
    };
    const outcome = await runWorkflow(runOptions(workflow, toolbox));
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'WORKFLOW_INVALID' } });
    expect(toolbox.calls).toHaveLength(0);
  });
});
