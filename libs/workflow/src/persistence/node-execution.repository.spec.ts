import { describe, expect, it } from '@jest/globals';
import { Types, type Model } from 'mongoose';
import type { ExecutionRecord } from '../engine/run-store.js';
import { ExecutionConflictError, NodeExecutionRepository } from './node-execution.repository.js';
import type { NodeExecutionDoc } from './node-execution.schema.js';

/** A collection double with a unique (runId, seq) index, as MongoDB and FerretDB enforce it. */
function fakeCollection() {
  const docs = new Map<string, Record<string, unknown>>();
  const key = (doc: { runId?: unknown; seq?: unknown }) => `${String(doc.runId)}:${String(doc.seq)}`;
  return {
    docs,
    insertOne: async (doc: Record<string, unknown>) => {
      if (docs.has(key(doc))) throw Object.assign(new Error('E11000 duplicate key'), { code: 11000 });
      docs.set(key(doc), doc);
    },
    replaceOne: async (filter: Record<string, unknown>, doc: Record<string, unknown>) => {
      const existing = docs.get(key(filter));
      if (!existing || existing.nodeId !== filter.nodeId) return { matchedCount: 0 };
      // As the stores do: a replacement keeps the stored `_id` (and may not carry another).
      if ('_id' in doc) throw new Error('the replacement must not change _id');
      docs.set(key(filter), { ...doc, _id: existing._id });
      return { matchedCount: 1 };
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

  it('inserts new records and overwrites a retried write of the same node', async () => {
    const { collection, repository } = setup();
    await repository.saveExecution(record(1, 'a', 'failed'));
    await repository.saveExecution(record(1, 'a', 'succeeded'));
    expect(collection.docs.size).toBe(1);
    expect([...collection.docs.values()][0]).toMatchObject({
      _id: `${runId}:1`,
      nodeId: 'a',
      status: 'succeeded',
      state: JSON.stringify({ text: 'a' }),
    });
  });

  it('refuses to overwrite another node’s record at the same seq (two workers on one run)', async () => {
    const { collection, repository } = setup();
    await repository.saveExecution(record(2, 'a'));
    await expect(repository.saveExecution(record(2, 'b'))).rejects.toBeInstanceOf(ExecutionConflictError);
    expect([...collection.docs.values()][0]).toMatchObject({ nodeId: 'a' });
  });
});
