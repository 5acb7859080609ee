import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { createInMemoryRunStore, type ExecutionRecord, type InMemoryRunStore, type RunStore } from './run-store.js';
import { runWorkflow } from './run-workflow.js';
import {
  chain,
  createFakeToolbox,
  edge,
  endNodeDef,
  fakeServices,
  ref,
  startNodeDef,
  toolNode,
  type FakeToolbox,
} from './testing/fake-services.js';
import type { WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();
const RUN = 'run-deferred';

/** Like the worker's store: deferred records wait in memory and go out with the next save; `failsAt` makes a save fail (the worker dies). */
function bufferingStore(durable: InMemoryRunStore, failsAt: (record: ExecutionRecord) => boolean = () => false) {
  let pending: ExecutionRecord[] = [];
  const saves: string[][] = [];
  const store: RunStore = {
    loadExecutions: (runId) => durable.loadExecutions(runId),
    deferExecution: (record) => void pending.push(record),
    saveExecution: async (record) => {
      if (failsAt(record)) throw new Error('the worker died');
      const batch = [...pending, record];
      pending = [];
      saves.push(batch.map((item) => item.nodeId));
      for (const item of batch) await durable.saveExecution(item);
    },
  };
  return { store, saves, pending: () => pending.map((item) => item.nodeId) };
}

const workflow: WorkflowDefinition = {
  name: 'pure between tools',
  nodes: [
    startNodeDef(),
    toolNode('first', 'first'),
    { id: 'note', type: 'template', config: {}, inputs: { text: { template: 'got {{first.text}}' } } },
    toolNode('second', 'second', { from: ref('note.text') }),
    endNodeDef({ said: ref('second.text') }),
  ],
  edges: chain('start', 'first', 'note', 'second', 'end'),
};

const run = (toolbox: FakeToolbox, store: RunStore) =>
  runWorkflow({ runId: RUN, workflow, inputs: {}, registry, services: fakeServices(toolbox), store });
const nodes = (durable: InMemoryRunStore) => durable.records(RUN).map((record) => `${record.seq} ${record.nodeId}`);

describe('runWorkflow: records of pure nodes ride on the next durable write', () => {
  it('saves only the tool nodes, each carrying the pure records before it; the last ones are left to the host', async () => {
    const durable = createInMemoryRunStore();
    const buffered = bufferingStore(durable);
    const outcome = await run(createFakeToolbox({ first: {}, second: {} }), buffered.store);
    expect(outcome.status).toBe('succeeded');
    expect(buffered.saves).toEqual([
      ['start', 'first'],
      ['note', 'second'],
    ]);
    // The end node's record is the host's to write with the run's terminal state.
    expect(buffered.pending()).toEqual(['end']);
  });

  it('a crash after a pure node and before the next write: the resume computes it again and calls no finished tool twice', async () => {
    const durable = createInMemoryRunStore();
    const toolbox = createFakeToolbox({ first: {}, second: {} });
    const dying = bufferingStore(durable, (record) => record.nodeId === 'second');
    await expect(run(toolbox, dying.store)).rejects.toThrow('the worker died');
    expect(nodes(durable)).toEqual(['1 start', '2 first']);

    const resumed = bufferingStore(durable);
    await expect(run(toolbox, resumed.store)).resolves.toMatchObject({ status: 'succeeded' });
    expect(toolbox.calls.map((call) => call.tool)).toEqual(['first', 'second', 'second']);
    expect(nodes(durable)).toEqual(['1 start', '2 first', '3 note', '4 second']);
  });

  it('without deferExecution every record is saved at once', async () => {
    const durable = createInMemoryRunStore();
    await run(createFakeToolbox({ first: {}, second: {} }), durable);
    expect(nodes(durable)).toEqual(['1 start', '2 first', '3 note', '4 second', '5 end']);
  });

  it('tells the host that no side effect can come while the last tool record is still being saved, and only then', async () => {
    const durable = createInMemoryRunStore();
    const events: string[] = [];
    let releaseLastSave: () => void = () => undefined;
    const store: RunStore = {
      loadExecutions: (runId) => durable.loadExecutions(runId),
      saveExecution: async (record) => {
        events.push(`save ${record.nodeId}`);
        if (record.nodeId === 'second') await new Promise<void>((resolve) => (releaseLastSave = resolve));
        await durable.saveExecution(record);
        events.push(`saved ${record.nodeId}`);
      },
      deferExecution: (record) => void durable.saveExecution(record),
    };
    const running = runWorkflow({
      runId: RUN,
      workflow,
      inputs: {},
      registry,
      services: fakeServices(createFakeToolbox({ first: {}, second: {} })),
      store,
      onSideEffectsOver: () => events.push('side effects over'),
    });
    try {
      await waitFor(() => events.includes('save second'));
      // After `first` the run could still call `second`; after `second` nothing but pure nodes is left.
      expect(events).toEqual(['save first', 'saved first', 'save second', 'side effects over']);
    } finally {
      releaseLastSave();
    }
    await expect(running).resolves.toMatchObject({ status: 'succeeded' });
    expect(events.filter((event) => event === 'side effects over')).toHaveLength(1);
  });

  it('a tool on an undecided branch keeps the run able to act until the branch is decided', async () => {
    const branching: WorkflowDefinition = {
      name: 'tool, then maybe another',
      nodes: [
        startNodeDef(),
        toolNode('first', 'first'),
        {
          id: 'check',
          type: 'condition',
          config: { branches: [{ id: 'again', when: { any: [{ left: ref('first.text'), op: 'exists' }] } }] },
          inputs: {},
        },
        toolNode('second', 'second'),
        endNodeDef({}),
      ],
      edges: [
        ...chain('start', 'first', 'check'),
        edge('check', 'second', 'branch:again'),
        ...chain('second', 'end'),
        edge('check', 'end', 'else'),
      ],
    };
    const seen: string[] = [];
    const store: RunStore = {
      loadExecutions: async () => [],
      saveExecution: async (record) => void seen.push(`save ${record.nodeId}`),
      deferExecution: () => undefined,
    };
    const toolbox = createFakeToolbox({ first: {}, second: {} });
    const outcome = await runWorkflow({
      runId: RUN,
      workflow: branching,
      inputs: {},
      registry,
      services: fakeServices(toolbox),
      store,
      onSideEffectsOver: () => seen.push('side effects over'),
    });
    expect(outcome.status).toBe('succeeded');
    expect(seen).toEqual(['save first', 'save second', 'side effects over']);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !condition(); turn++) await new Promise((resolve) => setImmediate(resolve));
  if (!condition()) throw new Error('the condition never held');
}
