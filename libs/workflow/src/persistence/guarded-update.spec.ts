import { describe, expect, it } from '@jest/globals';
import type { Model } from 'mongoose';
import { GuardedUpdates, matchesGuard, type GuardMode } from './guarded-update.js';

interface Doc {
  _id: string;
  status: string;
  lease?: string;
}

/** A model double that records the filters it is given and applies `$set` to one document. */
function fakeModel(doc: Doc) {
  const filters: Record<string, unknown>[] = [];
  const lean = <T>(value: T) => ({ lean: async () => value });
  const matches = (filter: Record<string, unknown>) =>
    Object.entries(filter).every(([field, expected]) => {
      const actual = (doc as unknown as Record<string, unknown>)[field];
      return typeof expected === 'object' && expected !== null && '$in' in expected
        ? (expected.$in as unknown[]).includes(actual)
        : actual === expected;
    });
  const model = {
    findById: (id: string) => {
      filters.push({ _id: id });
      return lean(id === doc._id ? { ...doc } : null);
    },
    findOneAndUpdate: (filter: Record<string, unknown>, update: { $set: Partial<Doc> }, options?: { returnDocument?: string }) => {
      filters.push(filter);
      if (!matches(filter)) return lean(null);
      const before = { ...doc };
      Object.assign(doc, update.$set);
      return lean(options?.returnDocument === 'before' ? before : { ...doc });
    },
    updateOne: async (filter: Record<string, unknown>, update: { $set: Partial<Doc> }) => {
      filters.push(filter);
      if (matches(filter)) Object.assign(doc, update.$set);
    },
  };
  return { model: model as unknown as Model<Doc>, filters, doc };
}

const updates = (model: Model<Doc>, mode: GuardMode) => new GuardedUpdates(model, async () => mode);

describe('matchesGuard', () => {
  it('compares values exactly and `$in` lists by membership', () => {
    expect(matchesGuard({ status: 'queued', claims: 2 }, { status: { $in: ['queued', 'running'] }, claims: 2 })).toBe(true);
    expect(matchesGuard({ status: 'canceled', claims: 2 }, { status: { $in: ['queued', 'running'] } })).toBe(false);
    expect(matchesGuard({ status: 'running' }, { lease: 'a' })).toBe(false);
  });
});

describe('GuardedUpdates', () => {
  it('puts the guard into the filter where the store applies it atomically (MongoDB)', async () => {
    const { model, filters } = fakeModel({ _id: 'r1', status: 'queued' });
    const after = await updates(model, 'in-filter').apply(
      'r1',
      { status: { $in: ['queued', 'running'] } },
      { $set: { status: 'running' } },
    );
    expect(after).toMatchObject({ status: 'running' });
    expect(filters).toEqual([{ _id: 'r1', status: { $in: ['queued', 'running'] } }]);
  });

  it('on FerretDB v1 reads and writes by `_id` alone and checks the guard in between', async () => {
    const { model, filters } = fakeModel({ _id: 'r1', status: 'running', lease: 'a' });
    const after = await updates(model, 'read-check-write').apply(
      'r1',
      { lease: 'a', status: 'running' },
      { $set: { status: 'succeeded' } },
    );
    expect(after).toMatchObject({ status: 'succeeded' });
    expect(filters).toEqual([{ _id: 'r1' }, { _id: 'r1' }]);
  });

  it('on FerretDB v1 writes nothing when the guard does not hold, or when the document is gone', async () => {
    const { model, filters, doc } = fakeModel({ _id: 'r1', status: 'running', lease: 'b' });
    const guarded = updates(model, 'read-check-write');
    expect(await guarded.apply('r1', { lease: 'a' }, { $set: { status: 'succeeded' } })).toBeUndefined();
    expect(await guarded.apply('r2', { lease: 'b' }, { $set: { status: 'succeeded' } })).toBeUndefined();
    expect(doc.status).toBe('running');
    expect(filters).toEqual([{ _id: 'r1' }, { _id: 'r2' }]);
  });

  it('on FerretDB v1 checks a document the caller just read instead of reading it again', async () => {
    const { model, filters } = fakeModel({ _id: 'r1', status: 'queued' });
    const known = { _id: 'r1', status: 'queued' };
    await updates(model, 'read-check-write').apply('r1', { status: 'queued' }, { $set: { status: 'failed' } }, { known });
    expect(filters).toEqual([{ _id: 'r1' }]);
  });

  it('writes only once the work it must follow is done; on FerretDB v1 the read runs alongside that work', async () => {
    for (const mode of ['in-filter', 'read-check-write'] as const) {
      const { model, filters } = fakeModel({ _id: 'r1', status: 'running' });
      let finishWork: () => void = () => undefined;
      const work = new Promise<void>((resolve) => (finishWork = resolve));
      const applied = updates(model, mode).apply('r1', { status: 'running' }, { $set: { status: 'succeeded' } }, { after: work });
      await new Promise((resolve) => setImmediate(resolve));
      expect(filters).toEqual(mode === 'in-filter' ? [] : [{ _id: 'r1' }]);
      finishWork();
      expect(await applied).toMatchObject({ status: 'succeeded' });
      expect(filters).toHaveLength(mode === 'in-filter' ? 1 : 2);
    }
  });

  it('applyFirst: on FerretDB v1 one write by `_id`, the guard checked on the document as it was', async () => {
    const { model, filters, doc } = fakeModel({ _id: 'r1', status: 'queued' });
    const undo = (was: Doc) => ({ $set: { status: was.status } });
    const before = await updates(model, 'read-check-write').applyFirst(
      'r1',
      { status: { $in: ['queued'] } },
      { $set: { status: 'running' } },
      undo,
    );
    expect(before).toMatchObject({ status: 'queued' });
    expect(doc.status).toBe('running');
    expect(filters).toEqual([{ _id: 'r1' }]);
  });

  it('applyFirst: on FerretDB v1 puts the document back when the guard did not hold; in the filter on MongoDB', async () => {
    const undo = (was: Doc) => ({ $set: { status: was.status } });
    const guard = { status: { $in: ['queued', 'running'] } };
    const ferret = fakeModel({ _id: 'r1', status: 'canceled' });
    expect(await updates(ferret.model, 'read-check-write').applyFirst('r1', guard, { $set: { status: 'running' } }, undo)).toBeUndefined();
    expect(ferret.doc.status).toBe('canceled');
    expect(ferret.filters).toEqual([{ _id: 'r1' }, { _id: 'r1' }]);
    const mongo = fakeModel({ _id: 'r1', status: 'canceled' });
    expect(await updates(mongo.model, 'in-filter').applyFirst('r1', guard, { $set: { status: 'running' } }, undo)).toBeUndefined();
    expect(mongo.doc.status).toBe('canceled');
    expect(mongo.filters).toEqual([{ _id: 'r1', ...guard }]);
  });
});
