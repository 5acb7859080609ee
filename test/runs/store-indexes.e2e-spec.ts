import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose, { type Connection } from 'mongoose';
import type { AppConfig } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow } from '../support/runs.js';
import { dropTestData, startApi, testConfig } from '../support/stack.js';

type Plan = Record<string, unknown>;

/** Every index a query plan reads: PostgreSQL's (FerretDB v1 answers with its plan) or MongoDB's (IXSCAN stages). */
function indexesUsed(plan: unknown, found: string[] = []): string[] {
  if (Array.isArray(plan)) plan.forEach((item) => indexesUsed(item, found));
  else if (plan && typeof plan === 'object') {
    const node = plan as Plan;
    if (typeof node['Index Name'] === 'string') found.push(node['Index Name']);
    if (typeof node.stage === 'string' && /IXSCAN|IDHACK/.test(node.stage)) found.push(String(node.indexName ?? '_id_'));
    Object.values(node).forEach((value) => indexesUsed(value, found));
  }
  return found;
}

/**
 * The store's hot reads use an index, whatever the history (issue 14). On the embedded FerretDB v1
 * over PostgreSQL, its equality pushdown (`_jsonb->'key' @> value`) cannot use the btree indexes
 * it makes itself: these reads are served by the GIN twins scripts/lib/ferretdb-gin-twins.sql
 * adds. On MongoDB they are plain index scans.
 */
describe('store: the hot reads use indexes', () => {
  let config: AppConfig;
  let app: Awaited<ReturnType<typeof startApi>>['app'];
  let db: Connection;
  let ferretdb = false;
  let runId: string;
  let workflowId: string;

  beforeAll(async () => {
    config = testConfig();
    const started = await startApi(config);
    app = started.app;
    db = await mongoose.createConnection(config.mongoUrl).asPromise();
    const info = (await db.db?.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string } | undefined;
    ferretdb = typeof info?.ferretdbVersion === 'string';
    workflowId = await createWorkflow(started.url, {
      name: 'indexed',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    // No worker: the run stays queued, which is all the reads below need.
    const run = await api<{ id: string }>(started.url, 'POST', `/workflows/${workflowId}/runs`, { inputs: {} });
    expect(run.status).toBe(202);
    runId = run.body.id;
    // A little history, so that a sequential scan is never the planner's cheaper choice.
    const filler = Array.from({ length: 300 }, (_, index) => ({
      workflowId: new mongoose.Types.ObjectId(workflowId),
      version: 1,
      status: 'succeeded',
      inputs: '{}',
      createdAt: new Date(Date.now() - index * 1000),
      claims: 1,
    }));
    await db.collection('runs').insertMany(filler);
    await db
      .collection('api_keys')
      .insertMany(filler.map((_, index) => ({ name: `filler ${index}`, hash: `${index}`.padStart(64, '0'), scopes: ['read'] })));
    // Node records have string ids (`<runId>:<seq>`).
    await db
      .collection<{ _id: string; runId: mongoose.Types.ObjectId; seq: number }>('node_executions')
      .insertMany(filler.map((_, index) => ({ _id: `${runId.slice(0, 20)}fill${index}:1`, runId: new mongoose.Types.ObjectId(), seq: 1 })));
  });
  afterAll(async () => {
    await db.close();
    await app.close();
    await dropTestData(config);
  });

  const explain = async (collection: string, filter: Record<string, unknown>) =>
    indexesUsed(await db.collection(collection).find(filter).explain());

  it('a run by _id, runs by workflow and status, a run log by runId, a key by hash: each read through an index', async () => {
    const reads: [string, Record<string, unknown>][] = [
      ['runs', { _id: new mongoose.Types.ObjectId(runId) }],
      ['runs', { workflowId: new mongoose.Types.ObjectId(workflowId), status: 'queued' }],
      ['runs', { status: 'queued' }],
      ['node_executions', { runId: new mongoose.Types.ObjectId(runId) }],
      ['api_keys', { hash: 'f'.repeat(64) }],
    ];
    for (const [collection, filter] of reads) {
      const used = await explain(collection, filter);
      expect({ collection, filter: Object.keys(filter), used: used.length > 0 }).toEqual({
        collection,
        filter: Object.keys(filter),
        used: true,
      });
      // FerretDB v1's own btree indexes cannot serve its `@>` pushdown: only a GIN twin can.
      if (ferretdb) expect(used.every((name) => name.endsWith('_gin'))).toBe(true);
    }
  });

  it('a collection made later (another database) gets its twins too', async () => {
    const other = db.useDb(`${db.name}_later`);
    try {
      await other.collection('things').createIndex({ owner: 1 });
      await other.collection('things').insertMany(Array.from({ length: 50 }, (_, index) => ({ owner: `o${index}` })));
      const used = indexesUsed(await other.collection('things').find({ owner: 'o7' }).explain());
      expect(used.length).toBeGreaterThan(0);
      if (ferretdb) expect(used.every((name) => name.endsWith('_gin'))).toBe(true);
    } finally {
      await other.dropDatabase();
    }
  });
});
