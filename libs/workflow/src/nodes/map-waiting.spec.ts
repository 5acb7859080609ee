import { describe, expect, it } from '@jest/globals';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { EngineError } from '../engine/errors.js';
import {
  chain,
  createFakeToolbox,
  edge,
  endNodeDef,
  fakeServices,
  literal,
  ref,
  startNodeDef,
  toolNode,
} from '../engine/testing/fake-services.js';
import type { InputAnswer, NodeDefinition, PauseRequest, RunPauses, WorkflowDefinition } from '../engine/types.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { CHILD_RUNS_EXTRA, type ChildRun, type ChildRunRequest } from './workflow.js';

const registry = createDefaultNodeRegistry();

function mapWith(step: NodeDefinition, concurrency: number, output: string, handles: string[] = []): WorkflowDefinition {
  const toEnd = handles.length > 0 ? handles.map((handle) => edge(step.id, 'end', handle)) : [edge(step.id, 'end')];
  const body = {
    nodes: [startNodeDef(), step, endNodeDef({ out: ref(`${step.id}.${output}`) })],
    edges: [edge('start', step.id), ...toEnd],
  };
  return {
    name: 'map that waits',
    nodes: [
      startNodeDef(),
      { id: 'each', type: 'map', config: { body, concurrency }, inputs: { items: ref('start.items') } },
      endNodeDef({ results: ref('each.results') }),
    ],
    edges: chain('start', 'each', 'end'),
  };
}

const callChild: NodeDefinition = { id: 'call', type: 'workflow', config: { workflowId: 'child' }, inputs: { n: ref('start.item') } };

/** A host that keeps child runs by the calling node's name (as the worker's idempotency key does) and pauses in memory. */
function host() {
  const children = new Map<string, ChildRun>();
  const starts: ChildRunRequest[] = [];
  const answers = new Map<string, InputAnswer>();
  const requested = new Map<string, PauseRequest>();
  const pauses: RunPauses = {
    stateOf: async (nodeId) => (answers.has(nodeId) ? { answer: answers.get(nodeId) } : undefined),
    request: (nodeId, request) => void requested.set(nodeId, request),
  };
  const start = async (request: ChildRunRequest): Promise<ChildRun> => {
    starts.push(request);
    const child = children.get(request.nodeId) ?? { runId: `child-of-${request.nodeId}`, version: 1, status: 'running' };
    children.set(request.nodeId, child);
    return child;
  };
  const finishChild = (nodeId: string, total: number) =>
    children.set(nodeId, { runId: `child-of-${nodeId}`, version: 1, status: 'succeeded', outputs: { total } });
  const services = { ...fakeServices(createFakeToolbox({})), pauses, extras: { [CHILD_RUNS_EXTRA]: { start } } };
  return { services, starts, answers, requested, finishChild };
}

const startsOf = (starts: ChildRunRequest[]) => starts.map((request) => request.nodeId);

describe('map: items whose body waits', () => {
  it('calls one child per item, waits for them holding nothing, and collects their outputs in order', async () => {
    const { services, starts, requested, finishChild } = host();
    const store = createInMemoryRunStore();
    const base = { runId: 'p', workflow: mapWith(callChild, 4, 'total'), inputs: { items: [1, 2, 3] }, registry, services, store };

    const first = await runWorkflow(base);
    expect(first).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/call', 'each[1]/call', 'each[2]/call'] });
    const byNode = [...starts].sort((a, b) => a.nodeId.localeCompare(b.nodeId));
    expect(byNode).toEqual(
      [0, 1, 2].map((index) => ({ parentRunId: 'p', nodeId: `each[${index}]/call`, workflowId: 'child', inputs: { n: index + 1 } })),
    );
    expect([...requested.keys()].sort()).toEqual(['each[0]/call', 'each[1]/call', 'each[2]/call']);
    expect(store.records('p').find((record) => record.nodeId === 'each[1]/call')).toMatchObject({
      status: 'waiting',
      details: { childRunId: 'child-of-each[1]/call', itemPath: [1] },
    });
    expect(store.records('p').find((record) => record.nodeId === 'each')).toMatchObject({
      status: 'waiting',
      details: { waitingItems: [0, 1, 2], finishedItems: 0 },
    });

    finishChild('each[1]/call', 20);
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/call', 'each[2]/call'] });

    finishChild('each[0]/call', 10);
    finishChild('each[2]/call', 30);
    starts.length = 0;
    const last = await runWorkflow(base);
    expect(last).toMatchObject({ status: 'succeeded', outputs: { results: [{ out: 10 }, { out: 20 }, { out: 30 }] } });
    // Item 1 finished before this resume: its node is not executed again.
    expect(startsOf(starts).sort()).toEqual(['each[0]/call', 'each[2]/call']);
    const finished = store.records('p').filter((record) => record.nodeId.endsWith('/call') && record.status === 'succeeded');
    expect(finished.map((record) => [record.nodeId, record.details?.childRunId, record.details?.itemPath]).sort()).toEqual([
      ['each[0]/call', 'child-of-each[0]/call', [0]],
      ['each[1]/call', 'child-of-each[1]/call', [1]],
      ['each[2]/call', 'child-of-each[2]/call', [2]],
    ]);
  });

  it('keeps a waiting item among the `concurrency` in flight: no more than that many children at once', async () => {
    const { services, starts, finishChild } = host();
    const base = {
      runId: 'p',
      workflow: mapWith(callChild, 2, 'total'),
      inputs: { items: [0, 1, 2, 3, 4] },
      registry,
      services,
      store: createInMemoryRunStore(),
    };
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/call', 'each[1]/call'] });
    expect(new Set(startsOf(starts))).toEqual(new Set(['each[0]/call', 'each[1]/call']));

    finishChild('each[0]/call', 0);
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[1]/call', 'each[2]/call'] });
    expect(startsOf(starts)).not.toContain('each[3]/call');

    for (let index = 1; index < 5; index += 1) finishChild(`each[${index}]/call`, index);
    expect(await runWorkflow(base)).toMatchObject({ status: 'succeeded', outputs: { results: [0, 1, 2, 3, 4].map((out) => ({ out })) } });
  });

  it("pauses on each item's approval under the item's name, and goes on with the items answered", async () => {
    const { services, answers, requested } = host();
    const ask: NodeDefinition = { id: 'ask', type: 'approval', config: { message: 'ok?' }, inputs: {} };
    const base = {
      runId: 'a',
      workflow: mapWith(ask, 4, 'action', ['approved', 'rejected']),
      inputs: { items: ['x', 'y'] },
      registry,
      services,
      store: createInMemoryRunStore(),
    };
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/ask', 'each[1]/ask'] });
    expect([...requested.keys()].sort()).toEqual(['each[0]/ask', 'each[1]/ask']);

    answers.set('each[1]/ask', { action: 'decline' });
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/ask'] });
    answers.set('each[0]/ask', { action: 'accept', content: {} });
    expect(await runWorkflow(base)).toMatchObject({ status: 'succeeded', outputs: { results: [{ out: 'accept' }, { out: 'decline' }] } });
  });

  it('keeps a collected failure when the map executes again: the failed item is not run again', async () => {
    const { answers } = host();
    const pauses: RunPauses = {
      stateOf: async (nodeId) => (answers.has(nodeId) ? { answer: answers.get(nodeId) } : undefined),
      request: () => undefined,
    };
    const toolbox = createFakeToolbox({
      check: {
        handler: (request) => {
          if (request.arguments.n === 'bad') throw new EngineError('MCP_TOOL_ERROR', 'bad item');
          return { text: 'ok' };
        },
      },
    });
    // Item "wait" asks a person; item "bad" fails its tool call.
    const body: WorkflowDefinition = {
      name: 'body',
      nodes: [
        startNodeDef(),
        {
          id: 'route',
          type: 'condition',
          config: { branches: [{ id: 'ask', when: { all: [{ left: ref('start.item'), op: 'eq', right: literal('wait') }] } }] },
          inputs: {},
        },
        { id: 'ask', type: 'approval', config: { message: 'ok?' }, inputs: {} },
        toolNode('check', 'check', { n: ref('start.item') }),
        endNodeDef({ asked: ref('ask.action'), checked: ref('check.text') }),
      ],
      edges: [
        edge('start', 'route'),
        edge('route', 'ask', 'branch:ask'),
        edge('route', 'check', 'else'),
        edge('ask', 'end', 'approved'),
        edge('ask', 'end', 'rejected'),
        edge('check', 'end'),
      ],
    };
    const workflow: WorkflowDefinition = {
      name: 'collect and wait',
      nodes: [
        startNodeDef(),
        { id: 'each', type: 'map', config: { body, onItemError: 'collect' }, inputs: { items: ref('start.items') } },
        endNodeDef({ results: ref('each.results'), failed: ref('each.failed') }),
      ],
      edges: chain('start', 'each', 'end'),
    };
    const base = {
      runId: 'c',
      workflow,
      inputs: { items: ['wait', 'bad'] },
      registry,
      services: { ...fakeServices(toolbox), pauses },
      store: createInMemoryRunStore(),
    };
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['each[0]/ask'] });
    answers.set('each[0]/ask', { action: 'accept', content: {} });
    const outcome = await runWorkflow(base);
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { failed: 1 } });
    expect((outcome.outputs.results as unknown[])[1]).toEqual({
      ok: false,
      error: { code: 'MCP_TOOL_ERROR', message: 'bad item', nodeId: 'check' },
    });
    expect(toolbox.calls).toHaveLength(1);
  });

  it('names the waiting nodes of a map inside a map by their index path', async () => {
    const { services, starts } = host();
    const inner = mapWith(callChild, 4, 'total');
    const innerMap = { ...inner.nodes[1], id: 'inner', inputs: { items: ref('start.item') } };
    const outer: WorkflowDefinition = {
      name: 'nested',
      nodes: [
        startNodeDef(),
        {
          id: 'outer',
          type: 'map',
          config: {
            body: { nodes: [startNodeDef(), innerMap, endNodeDef({ r: ref('inner.results') })], edges: chain('start', 'inner', 'end') },
          },
          inputs: { items: ref('start.items') },
        },
        endNodeDef({ results: ref('outer.results') }),
      ],
      edges: chain('start', 'outer', 'end'),
    };
    const outcome = await runWorkflow({
      runId: 'n',
      workflow: outer,
      inputs: { items: [[1], [2, 3]] },
      registry,
      services,
      store: createInMemoryRunStore(),
    });
    expect(outcome).toMatchObject({
      status: 'waiting',
      waitingNodes: ['outer[0]/inner[0]/call', 'outer[1]/inner[0]/call', 'outer[1]/inner[1]/call'],
    });
    expect(new Set(startsOf(starts))).toEqual(new Set(['outer[0]/inner[0]/call', 'outer[1]/inner[0]/call', 'outer[1]/inner[1]/call']));
  });
});
