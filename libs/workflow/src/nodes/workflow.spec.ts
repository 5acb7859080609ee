import { describe, expect, it } from '@jest/globals';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { validateWorkflow } from '../engine/validate-workflow.js';
import { chain, createFakeToolbox, endNodeDef, fakeServices, literal, ref, startNodeDef } from '../engine/testing/fake-services.js';
import type { PauseRequest, RunPauses, WorkflowCatalog, WorkflowDefinition } from '../engine/types.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { CHILD_RUNS_EXTRA, type ChildRun, type ChildRunRequest } from './workflow.js';

const registry = createDefaultNodeRegistry();

const workflow: WorkflowDefinition = {
  name: 'calls',
  nodes: [
    startNodeDef(),
    { id: 'call', type: 'workflow', config: { workflowId: 'child' }, inputs: { n: literal(1) } },
    endNodeDef({ total: ref('call.total') }),
  ],
  edges: chain('start', 'call', 'end'),
};

function host(child: () => ChildRun) {
  const requests: ChildRunRequest[] = [];
  const paused: PauseRequest[] = [];
  const pauses: RunPauses = { stateOf: async () => undefined, request: (_nodeId, request) => void paused.push(request) };
  const services = {
    ...fakeServices(createFakeToolbox({})),
    pauses,
    extras: { [CHILD_RUNS_EXTRA]: { start: async (request: ChildRunRequest) => (requests.push(request), child()) } },
  };
  return { services, requests, paused };
}

describe('workflow node', () => {
  it('starts the child, waits while it runs, then publishes its outputs', async () => {
    let child: ChildRun = { runId: 'c1', version: 2, status: 'running' };
    const { services, requests, paused } = host(() => child);
    const store = createInMemoryRunStore();
    const base = { runId: 'p1', workflow, inputs: {}, registry, services, store };
    expect(await runWorkflow(base)).toMatchObject({ status: 'waiting', waitingNodes: ['call'] });
    expect(requests).toEqual([{ parentRunId: 'p1', nodeId: 'call', workflowId: 'child', inputs: { n: 1 } }]);
    expect(paused[0]).toMatchObject({ message: 'waiting for child run c1' });
    expect(store.records('p1').find((record) => record.nodeId === 'call')).toMatchObject({
      status: 'waiting',
      details: { childRunId: 'c1' },
    });
    child = { runId: 'c1', version: 2, status: 'succeeded', outputs: { total: 2 } };
    expect(await runWorkflow(base)).toMatchObject({ status: 'succeeded', outputs: { total: 2 } });
  });

  it("fails with the child's error when the child failed", async () => {
    const { services } = host(() => ({ runId: 'c2', version: 1, status: 'failed', error: { code: 'MCP_TOOL_ERROR', message: 'no' } }));
    const outcome = await runWorkflow({ runId: 'p2', workflow, inputs: {}, registry, services, store: createInMemoryRunStore() });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: { code: 'MCP_TOOL_ERROR', nodeId: 'call', message: 'child run c2 failed: no' },
    });
  });

  describe('typed by the workflow it calls', () => {
    const child: WorkflowDefinition = {
      name: 'child',
      inputSchema: { type: 'object', properties: { n: { type: 'number' }, label: { type: 'string' } }, required: ['n'] },
      nodes: [startNodeDef(), endNodeDef({ total: ref('start.n') })],
      edges: chain('start', 'end'),
    };
    const asked: Array<[string, number | undefined]> = [];
    const workflows: WorkflowCatalog = {
      definitionOf: async (id, version) => (asked.push([id, version]), id === 'child' ? child : undefined),
    };
    const check = (definition: WorkflowDefinition, withWorkflows = true) =>
      validateWorkflow(definition, { registry, catalog: createFakeToolbox({}).catalog, ...(withWorkflows && { workflows }) });
    const calling = (inputs: WorkflowDefinition['nodes'][number]['inputs'], output: string, config: Record<string, unknown> = {}) => ({
      ...workflow,
      nodes: [
        startNodeDef(),
        { id: 'call', type: 'workflow', config: { workflowId: 'child', ...config }, inputs },
        endNodeDef({ out: ref(`call.${output}`) }),
      ],
    });

    it('accepts inputs and output references that fit, asking for the pinned version', async () => {
      expect(await check(calling({ n: literal(1) }, 'total', { version: 3 }))).toEqual([]);
      expect(asked).toContainEqual(['child', 3]);
    });

    it("refuses a required input left out, an input of the wrong type and an output the child's end does not give", async () => {
      const codes = (await check(calling({ label: literal(7) }, 'sum'))).map((issue) => `${issue.code} ${issue.path}`);
      expect(codes).toEqual(
        expect.arrayContaining([
          'MISSING_REQUIRED_INPUT /nodes/1/inputs/n',
          'TYPE_MISMATCH /nodes/1/inputs/label',
          'REF_UNKNOWN_OUTPUT /nodes/2/inputs/out',
        ]),
      );
    });

    it('is free-form where the host cannot tell (no catalog, or an unknown workflow)', async () => {
      expect(await check(calling({ anything: literal(1) }, 'whatever'), false)).toEqual([]);
      expect(
        await check({
          ...calling({ anything: literal(1) }, 'whatever'),
          nodes: calling({ anything: literal(1) }, 'whatever').nodes.map((node) =>
            node.id === 'call' ? { ...node, config: { workflowId: 'gone' } } : node,
          ),
        }),
      ).toEqual([]);
    });
  });
});
