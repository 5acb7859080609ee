import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { ENGINE_ERROR_CODES, EngineError } from './errors.js';
import { createInMemoryRunStore } from './run-store.js';
import { runWorkflow } from './run-workflow.js';
import { createFakeToolbox, edge, endNodeDef, fakeServices, ref, startNodeDef, toolNode } from './testing/fake-services.js';
import type { WorkflowDefinition } from './types.js';

const registry = createDefaultNodeRegistry();
const question = { message: 'Which one?', requestedSchema: { type: 'object' } };

describe('runWorkflow: a node that waits for input', () => {
  // start → ask → end, and start → other → end: the other branch goes on while `ask` waits.
  const workflow: WorkflowDefinition = {
    name: 'pausing',
    nodes: [startNodeDef(), toolNode('ask', 'ask'), toolNode('other', 'other'), endNodeDef({ a: ref('ask.text'), o: ref('other.text') })],
    edges: [edge('start', 'ask'), edge('start', 'other'), edge('ask', 'end'), edge('other', 'end')],
  };

  it('ends the run `waiting` (not failed, no retry), records the node `waiting` with the request, and a resume executes it again', async () => {
    let answered = false;
    const toolbox = createFakeToolbox({
      ask: {
        handler: () => {
          if (!answered) throw new EngineError(ENGINE_ERROR_CODES.inputRequired, 'asked', { details: { inputRequest: question } });
          return { text: 'yes' };
        },
      },
      other: { handler: () => ({ text: 'done' }) },
    });
    const store = createInMemoryRunStore();
    const base = { runId: 'r', workflow, inputs: {}, registry, services: fakeServices(toolbox), store };
    const waiting = await runWorkflow({
      ...base,
      workflow: { ...workflow, nodes: workflow.nodes.map((n) => (n.id === 'ask' ? { ...n, retry: { maxAttempts: 3, backoffMs: 0 } } : n)) },
    });
    expect(waiting).toMatchObject({ status: 'waiting', waitingNodes: ['ask'], outputs: {} });
    expect(waiting.error).toBeUndefined();
    const records = store.records('r');
    expect(records.find((record) => record.nodeId === 'ask')).toMatchObject({
      status: 'waiting',
      attempt: 1,
      details: { inputRequest: question },
      error: { code: 'INPUT_REQUIRED' },
    });
    expect(records.find((record) => record.nodeId === 'other')?.status).toBe('succeeded');
    expect(records.some((record) => record.nodeId === 'end')).toBe(false);

    answered = true;
    const resumed = await runWorkflow(base);
    expect(resumed).toMatchObject({ status: 'succeeded', outputs: { a: 'yes', o: 'done' } });
    expect(toolbox.calls.filter((call) => call.tool === 'other')).toHaveLength(1);
    expect(toolbox.calls.filter((call) => call.tool === 'ask')).toHaveLength(2);
  });
});
