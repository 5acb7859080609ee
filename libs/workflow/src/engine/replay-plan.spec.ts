import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { planReplay, upstreamChanges } from './replay-plan.js';
import { createInMemoryRunStore, type ExecutionRecord } from './run-store.js';
import { runWorkflow } from './run-workflow.js';
import {
  chain,
  createFakeToolbox,
  endNodeDef,
  fakeServices,
  field,
  ref,
  startNodeDef,
  template,
  toolNode,
} from './testing/fake-services.js';
import type { WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();

/** start → one → label (pure) → two → three → end, each tool adding 1 to its input. */
const workflow: WorkflowDefinition = {
  name: 'three calls',
  nodes: [
    startNodeDef(),
    toolNode('one', 'inc', { n: ref('start.n') }),
    { id: 'label', type: 'template', config: {}, inputs: { text: template('n={{one.result}}') } },
    toolNode('two', 'inc', { n: ref('one.result') }),
    toolNode('three', 'inc', { n: ref('two.result') }),
    endNodeDef({ total: ref('three.result'), label: ref('label.text') }),
  ],
  edges: chain('start', 'one', 'label', 'two', 'three', 'end'),
};

function toolbox(failAt?: number) {
  return createFakeToolbox({
    inc: {
      inputs: [field('n', 'number', true)],
      handler: ({ arguments: args }) => {
        const n = Number(args.n);
        return n === failAt ? { isError: true, text: 'no' } : { text: String(n + 1) };
      },
    },
  });
}

async function runOnce(runId: string, inputs: Record<string, unknown>, tools = toolbox(), earlier: ExecutionRecord[] = []) {
  const store = createInMemoryRunStore();
  for (const record of earlier) await store.saveExecution({ ...record, runId });
  const outcome = await runWorkflow({ runId, workflow, inputs, registry, services: fakeServices(tools), store });
  return { outcome, records: store.records(runId), tools };
}

describe('planReplay', () => {
  it('keeps the outputs upstream of the node: resumed from them, the run calls only the node and what follows', async () => {
    const first = await runOnce('run-1', { n: 1 });
    expect(first.outcome.outputs).toEqual({ total: 4, label: 'n=2' });
    const plan = planReplay(workflow, registry, first.records, 'two');
    if ('reason' in plan) throw new Error(plan.message);
    expect(plan.records.map((record) => record.nodeId)).toEqual(['one', 'label']);
    expect(plan.records.every((record) => record.details?.replayed === true)).toBe(true);
    const replay = await runOnce('run-2', { n: 1 }, toolbox(), plan.records);
    expect(replay.outcome).toMatchObject({ status: 'succeeded', outputs: { total: 4, label: 'n=2' } });
    expect(replay.tools.calls.map((call) => call.arguments.n)).toEqual([2, 3]);
  });

  it('starts from a node the earlier run failed at', async () => {
    const first = await runOnce('run-3', { n: 1 }, toolbox(3));
    expect(first.outcome.status).toBe('failed');
    const plan = planReplay(workflow, registry, first.records, 'three');
    if ('reason' in plan) throw new Error(plan.message);
    expect(plan.records.map((record) => record.nodeId)).toEqual(['one', 'label', 'two']);
  });

  it('refuses an unknown node, and a node the earlier run did not reach', async () => {
    const first = await runOnce('run-4', { n: 1 }, toolbox(1));
    expect(planReplay(workflow, registry, first.records, 'nope')).toMatchObject({ reason: 'unknown-node' });
    expect(planReplay(workflow, registry, first.records, 'three')).toMatchObject({
      reason: 'not-reached',
      message: expect.stringContaining('"three" was not reached'),
    });
    expect(planReplay(workflow, registry, first.records, 'one')).toMatchObject({ records: [] });
    expect(planReplay(workflow, registry, first.records, 'two')).toMatchObject({
      reason: 'not-reached',
      message: expect.stringContaining('"two" was not reached'),
    });
  });
});

describe('upstreamChanges', () => {
  const edit = (change: (definition: WorkflowDefinition) => void): WorkflowDefinition => {
    const next = structuredClone(workflow);
    change(next);
    return next;
  };

  it('accepts a version that changes only fromNodeId and what follows, or key order', () => {
    const later = edit((next) => {
      next.nodes[4] = toolNode('three', 'inc', { n: ref('one.result') });
      next.nodes[1] = { inputs: next.nodes[1].inputs, config: next.nodes[1].config, type: 'mcpTool', id: 'one' };
    });
    expect(upstreamChanges(workflow, later, 'three')).toEqual([]);
  });

  it('names the upstream nodes whose definition or incoming edges changed, and the new ones', () => {
    const later = edit((next) => {
      next.nodes[1] = toolNode('one', 'inc', { n: ref('start.other') });
      next.nodes.push(toolNode('extra', 'inc', { n: ref('one.result') }));
      next.edges = [...chain('start', 'one', 'extra', 'label', 'two', 'three', 'end')];
    });
    expect(upstreamChanges(workflow, later, 'two')).toEqual(['one', 'label', 'extra']);
  });
});
