import { describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import type { ExecutionRecord } from '../engine/run-store.js';
import { toFinalExecutions } from './node-execution.repository.js';
import { newRunDoc, toRunRecord } from './run-documents.js';
import { deadlineStartOf } from './run-record.js';
import type { RunDoc } from './run.schema.js';

const T0 = new Date('2026-11-26T10:00:00.000Z');
const workflowId = new Types.ObjectId().toHexString();

const logged: ExecutionRecord = {
  runId: 'r',
  seq: 4,
  nodeId: 'end',
  type: 'end',
  status: 'succeeded',
  attempt: 1,
  startedAt: 1,
  finishedAt: 2,
  durationMs: 1,
  inputs: {},
  outputs: { done: true },
  activeHandles: [],
};

function finishedDoc(): RunDoc {
  return {
    ...newRunDoc({ workflowId, version: 2, inputs: { topic: 'x.y', $schema: 'kept' }, retryOf: workflowId }, undefined, T0),
    status: 'succeeded',
    outputs: '{"answer":[1,{"$ref":"#"}]}',
    claims: 1,
    startedAt: T0,
    finishedAt: T0,
    finalExecutions: toFinalExecutions([logged]),
    inputRequest: undefined,
  };
}

describe('run records', () => {
  it('hands out string ids and parsed JSON fields, never the stored shapes', () => {
    const doc = finishedDoc();
    const run = toRunRecord(doc);
    expect(run.id).toBe(String(doc._id));
    expect(run.workflowId).toBe(workflowId);
    expect(run.retryOf).toBe(workflowId);
    expect(typeof run.id).toBe('string');
    expect(run.inputs).toEqual({ topic: 'x.y', $schema: 'kept' });
    expect(run.outputs).toEqual({ answer: [1, { $ref: '#' }] });
    expect(run).not.toHaveProperty('_id');
    expect(run).not.toHaveProperty('parentRunId');
  });

  it('parses the records the terminal write carried only when asked, and once', () => {
    const run = toRunRecord(finishedDoc());
    const first = run.finalExecutions();
    expect(first).toEqual([logged]);
    expect(run.finalExecutions()).toBe(first);
    expect(toRunRecord({ ...finishedDoc(), finalExecutions: undefined }).finalExecutions()).toEqual([]);
  });

  it('takes the fields the caller already holds parsed instead of parsing their text again', () => {
    const inputs = { topic: 'held' };
    const requestedSchema = { type: 'object' };
    const inputRequest = { nodeId: 'ask', message: 'ok?', requestedSchema, requestedAt: T0 };
    const stored = { ...inputRequest, requestedSchema: JSON.stringify(requestedSchema) };
    const run = toRunRecord({ ...finishedDoc(), inputRequest: stored }, { inputs, inputRequest });
    expect(run.inputs).toBe(inputs);
    expect(run.inputRequest).toBe(inputRequest);
    expect(toRunRecord({ ...finishedDoc(), inputRequest: stored }).inputRequest).toEqual(inputRequest);
  });

  it('builds a queued run with the id asked for, and its deadline counts from creation until it starts', () => {
    const id = new Types.ObjectId().toHexString();
    const doc = newRunDoc({ id, workflowId, version: 1, inputs: {}, parent: { runId: id, nodeId: 'sub', depth: 1 } }, undefined, T0);
    const run = toRunRecord(doc);
    expect(run).toMatchObject({ id, status: 'queued', claims: 0, parentRunId: id, parentNodeId: 'sub', depth: 1 });
    expect(run.idempotencyScope).toBeUndefined();
    expect(deadlineStartOf(run)).toBe(T0);
  });
});
