import { describe, expect, it } from '@jest/globals';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { chain, createFakeToolbox, endNodeDef, fakeServices, field, ref, startNodeDef, toolNode } from '../engine/testing/fake-services.js';
import type { WorkflowDefinition } from '../engine/types.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';

const registry = createDefaultNodeRegistry();

function mapOver(onItemError: 'fail' | 'collect', afterMap = true): WorkflowDefinition {
  const body: WorkflowDefinition = {
    name: 'body',
    nodes: [startNodeDef(), toolNode('call', 'echo', { n: ref('start.item') }), endNodeDef({ n: ref('call.result') })],
    edges: chain('start', 'call', 'end'),
  };
  return {
    name: 'map',
    nodes: [
      startNodeDef(),
      { id: 'each', type: 'map', config: { body, concurrency: 2, onItemError }, inputs: { items: ref('start.items') } },
      ...(afterMap ? [endNodeDef({ results: ref('each.results') })] : []),
    ],
    edges: afterMap ? chain('start', 'each', 'end') : chain('start', 'each'),
  };
}

describe('map: executions count against the run limit', () => {
  const echo = { inputs: [field('n', 'integer', true)], handler: () => ({ text: '1' }) };

  it.each(['fail', 'collect'] as const)(
    'stops the run when its items pass RUN_MAX_NODE_EXECUTIONS (onItemError %s)',
    async (onItemError) => {
      const toolbox = createFakeToolbox({ echo });
      const store = createInMemoryRunStore();
      const outcome = await runWorkflow({
        runId: 'run-1',
        workflow: mapOver(onItemError, false),
        inputs: { items: Array.from({ length: 20 }, (_, index) => index) },
        registry,
        services: fakeServices(toolbox),
        store,
        limits: { maxNodeExecutions: 12 },
      });
      expect(outcome.status).toBe('failed');
      expect(outcome.error?.code).toBe('MAX_NODE_EXECUTIONS');
      // start + map, then 3 per item (start, call, end): the body never gets past the budget.
      expect(toolbox.calls.length).toBeLessThanOrEqual(4);
      const executed = store.records('run-1').filter((record) => record.status !== 'skipped' && record.status !== 'canceled');
      expect(executed.length).toBeLessThanOrEqual(12);
    },
  );

  it('lets a map under the limit finish', async () => {
    const toolbox = createFakeToolbox({ echo });
    const outcome = await runWorkflow({
      runId: 'run-2',
      workflow: mapOver('fail'),
      inputs: { items: [1, 2, 3] },
      registry,
      services: fakeServices(toolbox),
      store: createInMemoryRunStore(),
      limits: { maxNodeExecutions: 12 },
    });
    expect(outcome.status).toBe('succeeded');
    expect(toolbox.calls).toHaveLength(3);
  });
});

describe("map: a body node's tool calls", () => {
  it("carry the item's node name, so that no two items share an idempotency key or an elicitation answer", async () => {
    const toolbox = createFakeToolbox({ echo: { inputs: [field('n', 'integer', true)], handler: () => ({ text: '1' }) } });
    await runWorkflow({
      runId: 'run-3',
      workflow: mapOver('fail'),
      inputs: { items: [1, 2, 3] },
      registry,
      services: fakeServices(toolbox),
      store: createInMemoryRunStore(),
    });
    expect(toolbox.calls.map((call) => call.nodeId).sort()).toEqual(['each[0]/call', 'each[1]/call', 'each[2]/call']);
  });
});
