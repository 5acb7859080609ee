import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import type { RunEvent } from './run-events.js';
import { createInMemoryRunStore, type ExecutionRecord, type RunStore } from './run-store.js';
import { runWorkflow } from './run-workflow.js';
import { chain, createFakeToolbox, endNodeDef, fakeServices, ref, startNodeDef, template, toolNode } from './testing/fake-services.js';
import type { WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();

/** An in-memory store that remembers each write as the list of node ids it carried. */
function countingStore(): RunStore & { writes: string[][]; inner: ReturnType<typeof createInMemoryRunStore> } {
  const inner = createInMemoryRunStore();
  const writes: string[][] = [];
  return {
    inner,
    writes,
    loadExecutions: (runId) => inner.loadExecutions(runId),
    saveExecutions: async (records: ExecutionRecord[]) => {
      writes.push(records.map((record) => record.nodeId));
      await inner.saveExecutions(records);
    },
  };
}

const echoFlow: WorkflowDefinition = {
  name: 'echo',
  nodes: [startNodeDef(), { id: 'note', type: 'template', config: {}, inputs: { text: template('hi {{start.n}}') } }, toolNode('echo', 'echo', { message: ref('note.text') }), endNodeDef({ said: ref('echo.text') })],
  edges: chain('start', 'note', 'echo', 'end'),
};

describe('runWorkflow: pure nodes ride on the next durable write', () => {
  it('writes start and template with the tool node’s record, and end at the close, in one write each', async () => {
    const toolbox = createFakeToolbox({ echo: { handler: ({ arguments: args }) => ({ text: `echo ${String(args.message)}` }) } });
    const store = countingStore();
    const events: RunEvent[] = [];
    const outcome = await runWorkflow({ runId: 'r1', workflow: echoFlow, inputs: { n: 1 }, registry, services: fakeServices(toolbox), store, onEvent: (event) => events.push(event) });
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { said: 'echo hi 1' }, unsaved: [] });
    expect(store.writes).toEqual([['start', 'note', 'echo'], ['end']]);
    // node.finished goes out as each node finishes, written or not, in seq order.
    const finished = events.filter((event) => event.type === 'node.finished').map((event) => (event.type === 'node.finished' ? event.record.seq : 0));
    expect(finished).toEqual([1, 2, 3, 4]);
  });

  it('hands the trailing pure records to the host with deferUnsaved, unwritten', async () => {
    const toolbox = createFakeToolbox({ echo: {} });
    const store = countingStore();
    const events: RunEvent[] = [];
    const outcome = await runWorkflow({ runId: 'r2', workflow: echoFlow, inputs: { n: 2 }, registry, services: fakeServices(toolbox), store, deferUnsaved: true, onEvent: (event) => events.push(event) });
    expect(store.writes).toEqual([['start', 'note', 'echo']]);
    expect(outcome.unsaved.map((record) => `${record.seq} ${record.nodeId}`)).toEqual(['4 end']);
    expect(events.filter((event) => event.type === 'node.finished')).toHaveLength(4);
  });

  it('recomputes on resume a pure node whose record a crash lost, and calls no finished tool again', async () => {
    const toolbox = createFakeToolbox({ first: { handler: () => ({ text: '7' }) }, echo: { handler: ({ arguments: args }) => ({ text: String(args.message) }) } });
    const workflow: WorkflowDefinition = {
      name: 'crash between',
      nodes: [startNodeDef(), toolNode('first', 'first'), { id: 'note', type: 'template', config: {}, inputs: { text: template('got {{first.text}}') } }, toolNode('echo', 'echo', { message: ref('note.text') }), endNodeDef({ said: ref('echo.text') })],
      edges: chain('start', 'first', 'note', 'echo', 'end'),
    };
    const store = createInMemoryRunStore();
    const dying: RunStore = {
      loadExecutions: (runId) => store.loadExecutions(runId),
      saveExecutions: async (records) => {
        if (records.some((record) => record.nodeId === 'echo')) throw new Error('worker killed');
        await store.saveExecutions(records);
      },
    };
    await expect(runWorkflow({ runId: 'r3', workflow, inputs: {}, registry, services: fakeServices(toolbox), store: dying })).rejects.toThrow('worker killed');
    expect(store.records('r3').map((record) => record.nodeId)).toEqual(['start', 'first']);
    const outcome = await runWorkflow({ runId: 'r3', workflow, inputs: {}, registry, services: fakeServices(toolbox), store });
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { said: 'got 7' } });
    expect(toolbox.calls.map((call) => call.tool)).toEqual(['first', 'echo', 'echo']);
    expect(store.records('r3').map((record) => `${record.seq} ${record.nodeId}`)).toEqual(['1 start', '2 first', '3 note', '4 echo', '5 end']);
  });
});
