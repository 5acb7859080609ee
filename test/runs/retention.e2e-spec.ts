import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import mongoose, { Types } from 'mongoose';
import { RunHistoryRepository, type AppConfig, type RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, FAST_RECOVERY, registerToolset, runToEnd, startRun, waitForRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

const LONG_AGO = new Date('2020-01-01T00:00:00Z');

describe('retention of finished runs, DELETE /runs/:id', () => {
  let config: AppConfig;
  let apiApp: Awaited<ReturnType<typeof startApi>>;
  let worker: INestApplicationContext;
  let db: mongoose.Connection;
  let fixture: FixtureServer;
  let workflowId: string;

  const count = (collection: string, filter: Record<string, unknown> = {}) => db.collection(collection).countDocuments(filter);
  /** Runs no retention may touch, whatever their dates say: queued, running and waiting (issue 12's status). */
  const unfinished = ['queued', 'running', 'waiting'].map((status) => ({ _id: new Types.ObjectId(), status }));

  beforeAll(async () => {
    config = testConfig({
      ...FAST_RECOVERY,
      // The sweep leaves the hand-made unfinished runs alone for the test's length.
      RUN_REQUEUE_AFTER_MS: '600000',
      RUN_RETENTION_INTERVAL_MS: '1000',
      RUN_RETENTION_MAX_COUNT: '3',
      RUN_RETENTION_MAX_AGE: '14d',
    });
    apiApp = await startApi(config);
    worker = await startWorker(config);
    db = await mongoose.createConnection(config.mongoUrl).asPromise();
    fixture = await startFixtureServer({ tools: basicTools() });
    const ts = await registerToolset(apiApp.url, fixture.url);
    workflowId = await createWorkflow(apiApp.url, {
      name: 'echo',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId: ts, tool: 'echo' }, inputs: { message: { value: 'hi' } } },
        { id: 'end', type: 'end', inputs: { text: { ref: 'echo.text' } } },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    });
    const workflow = new Types.ObjectId(workflowId);
    await db.collection('runs').insertMany(
      unfinished.map(({ _id, status }) => ({
        _id,
        status,
        workflowId: workflow,
        version: 1,
        inputs: '{}',
        claims: 0,
        createdAt: LONG_AGO,
        finishedAt: LONG_AGO,
        checkedAt: new Date(),
      })),
    );
  });
  afterAll(async () => {
    await worker?.close();
    await apiApp?.app.close();
    await db?.close();
    await fixture?.close();
    await dropTestData(config);
  });

  it('deletes one finished run with its log, session records and idempotency key; 409 unfinished, 404 unknown', async () => {
    const first = await startRun(apiApp.url, workflowId, {}, '?wait=20000', { 'idempotency-key': 'nightly-1' });
    const run = first.status === 200 ? first.body : await waitForRun(apiApp.url, first.body.id);
    expect(run.status).toBe('succeeded');
    const runId = new Types.ObjectId(run.id);
    // A record a dead worker could have left behind goes too.
    await db.collection('run_mcp_sessions').insertOne({
      _id: `${run.id}:left-over` as unknown as Types.ObjectId,
      runId,
      toolsetId: 'x',
      sessionId: 'left-over',
      createdAt: new Date(),
    });
    // start's and echo's records (seq > 0); end's rode on the terminal write, in the run document.
    // The run's journal markers (claim, call, end: seq < 0) are there too, and go with the run.
    expect(await count('node_executions', { runId, seq: { $gt: 0 } })).toBe(2);

    const deleted = await api(apiApp.url, 'DELETE', `/runs/${run.id}`);
    expect(deleted.status).toBe(204);
    expect((await api(apiApp.url, 'GET', `/runs/${run.id}`)).status).toBe(404);
    expect((await api(apiApp.url, 'GET', `/runs/${run.id}/logs`)).status).toBe(404);
    expect(await count('node_executions', { runId })).toBe(0);
    expect(await count('run_mcp_sessions', { runId })).toBe(0);
    // The key is free again: the same request makes a new run instead of replaying the deleted one.
    const again = await startRun(apiApp.url, workflowId, {}, '', { 'idempotency-key': 'nightly-1' });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(run.id);
    await waitForRun(apiApp.url, again.body.id);

    for (const { _id, status } of unfinished) {
      const refused = await api<{ code: string; message: string }>(apiApp.url, 'DELETE', `/runs/${String(_id)}`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'RUN_NOT_FINISHED', message: expect.stringContaining(status) });
    }
    expect((await api<{ code: string }>(apiApp.url, 'DELETE', `/runs/${run.id}`)).body.code).toBe('NOT_FOUND');
    expect((await api(apiApp.url, 'DELETE', '/runs/not-an-id')).status).toBe(404);
  });

  it('keeps the newest RUN_RETENTION_MAX_COUNT finished runs, pruned by the scheduled job; unfinished runs stay', async () => {
    const runs: RunView[] = [];
    for (let i = 0; i < 5; i += 1) runs.push(await runToEnd(apiApp.url, workflowId));
    const deadline = Date.now() + 20_000;
    while ((await count('runs', { status: 'succeeded' })) > 3) {
      if (Date.now() > deadline) throw new Error('retention did not prune down to 3 finished runs within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const kept = await db.collection('runs').find({ status: 'succeeded' }).sort({ finishedAt: 1 }).toArray();
    expect(kept.map((doc) => String(doc._id))).toEqual(runs.slice(-3).map((run) => run.id));
    for (const run of runs.slice(0, 2)) expect(await count('node_executions', { runId: new Types.ObjectId(run.id) })).toBe(0);
    for (const run of runs.slice(-3))
      expect(await count('node_executions', { runId: new Types.ObjectId(run.id), seq: { $gt: 0 } })).toBe(2);
    expect(await count('runs', { _id: { $in: unfinished.map(({ _id }) => _id) } })).toBe(3);
  });

  it('prunes by age in bounded batches, and a pass out of budget says so and leaves the rest to the next', async () => {
    const history = worker.get(RunHistoryRepository);
    const finished = await count('runs', { status: { $in: ['succeeded', 'failed', 'canceled'] } });
    expect(finished).toBeGreaterThan(0);
    const inThreeWeeks = new Date(Date.now() + 21 * 86_400_000);
    const policy = { maxAgeMs: 14 * 86_400_000, maxCount: 0 };
    expect(await history.prune(policy, { now: inThreeWeeks, budgetMs: -1 })).toEqual({ byAge: 0, byCount: 0, complete: false });
    expect(await history.prune(policy, { now: new Date() })).toEqual({ byAge: 0, byCount: 0, complete: true });
    expect(await history.prune(policy, { now: inThreeWeeks, batchSize: 2 })).toEqual({ byAge: finished, byCount: 0, complete: true });
    expect(await count('runs')).toBe(3);
    expect(await count('runs', { _id: { $in: unfinished.map(({ _id }) => _id) } })).toBe(3);
    expect(await count('node_executions')).toBe(0);
  });
});
