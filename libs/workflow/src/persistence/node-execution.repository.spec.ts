import { describe, expect, it } from '@jest/globals';
import { Types, type Model } from 'mongoose';
import type { ExecutionRecord } from '../engine/run-store.js';
import { ExecutionConflictError, NodeExecutionRepository } from './node-execution.repository.js';
import type { NodeExecutionDoc } from './node-execution.schema.js';

/** A collection double whose `_id` is unique, as MongoDB and FerretDB enforce it. */
function fakeCollection() {
  const docs = new Map<string, Record<string, unknown>>();
  return {
    docs,
    insertMany: async (batch: Record<string, unknown>[]) => {
      for (const doc of batch) {
        if (docs.has(String(doc._id))) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
        docs.set(String(doc._id), doc);
      }
    },
  };
}

const runId = new Types.ObjectId().toHexString();
const record = (seq: number, nodeId: string, status: ExecutionRecord['status'] = 'succeeded'): ExecutionRecord => ({
  runId,
  seq,
  nodeId,
  type: 'template',
  status,
  attempt: 1,
  startedAt: 1,
  finishedAt: 2,
  durationMs: 1,
  inputs: {},
  outputs: { text: nodeId },
  activeHandles: ['out'],
  state: { outputs: { text: nodeId } },
});

describe('NodeExecutionRepository.saveExecution', () => {
  const setup = () => {
    const collection = fakeCollection();
    const repository = new NodeExecutionRepository({ collection } as unknown as Model<NodeExecutionDoc>);
    return { collection, repository };
  };

  it('inserts new records at <runId>:<seq>', async () => {
    const { collection, repository } = setup();
    await repository.saveExecutions([record(1, 'a', 'failed'), record(2, 'b')]);
    expect([...collection.docs.values()].map((doc) => [doc._id, doc.nodeId, doc.slot])).toEqual([
      [`${runId}:1`, 'a', 1],
      [`${runId}:2`, 'b', 2],
    ]);
  });

  it('never replaces a stored record: a second writer of one place fails (two workers on one run)', async () => {
    const { collection, repository } = setup();
    await repository.saveExecution(record(2, 'a'));
    await expect(repository.saveExecution(record(2, 'a', 'failed'))).rejects.toBeInstanceOf(ExecutionConflictError);
    await expect(repository.saveExecution(record(2, 'b'))).rejects.toBeInstanceOf(ExecutionConflictError);
    expect([...collection.docs.values()]).toEqual([expect.objectContaining({ nodeId: 'a', status: 'succeeded' })]);
  });
});
