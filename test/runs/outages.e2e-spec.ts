import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Queue } from 'bullmq';
import { openQueue, runJobId, type AppConfig, type RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, startRun } from '../support/runs.js';
import { startFerretDb, startRedis, type StartedService } from '../support/services.js';
import { dropTestData, startApi, testConfig } from '../support/stack.js';
import { until } from '../support/until.js';

const pureFlow = {
  name: 'outages',
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'say', type: 'template', inputs: { text: { value: 'hi' } } },
    { id: 'end', type: 'end', inputs: { said: { ref: 'say.text' } } },
  ],
  edges: [
    { source: 'start', target: 'say' },
    { source: 'say', target: 'end' },
  ],
};

/**
 * A dependency down answers 503 with Retry-After and a code, never 500 (issue 22); a trigger is
 * answered 202 only when its run is surely stored. No worker here: the runs stay queued.
 */
describe('outages: the store or Redis down', () => {
  let ferret: StartedService;
  let redis: StartedService;
  let url: string;
  let close: () => Promise<void>;
  let workflowId: string;
  let config: AppConfig;

  beforeAll(async () => {
    ferret = await startFerretDb();
    redis = await startRedis();
    config = testConfig({ MONGO_URL: ferret.url, REDIS_URL: redis.url });
    const started = await startApi(config);
    url = started.url;
    close = async () => {
      await started.app.close();
      await dropTestData(config).catch(() => undefined);
    };
    workflowId = await createWorkflow(url, pureFlow);
  }, 60_000);
  afterAll(async () => {
    await close();
    await redis.stop();
    await ferret.stop();
  }, 30_000);

  it('Redis down: a trigger is stored and accepted (202, also with ?wait), and its Idempotency-Key retry answers the same run', async () => {
    await redis.stop();
    try {
      const first = await startRun(url, workflowId, {}, '?wait=2000', { 'Idempotency-Key': 'while-redis-is-down' });
      expect(first.status).toBe(202);
      expect(first.body).toMatchObject({ status: 'queued' });
      const again = await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'while-redis-is-down' });
      expect(again.status).toBe(202);
      expect(again.body.id).toBe(first.body.id);
    } finally {
      redis = await startRedis(redis.port);
    }
  }, 30_000);

  it('a retry of a trigger whose run was stored but never enqueued puts the run in line at once (no sweep needed)', async () => {
    await redis.stop();
    let runId: string;
    try {
      const first = await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'stored-not-enqueued' });
      expect(first.status).toBe(202);
      runId = first.body.id;
    } finally {
      redis = await startRedis(redis.port);
    }
    // Redis is back empty: the run is stored and queued, with no job (no worker or sweep runs here).
    const queue: Queue = openQueue(config, 'runs');
    try {
      expect(await queue.getJob(runJobId(runId))).toBeUndefined();
      // Retried until the API's own connection to Redis is back (an enqueue it cannot make is left to the sweep).
      await until(
        async () => {
          const retried = await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'stored-not-enqueued' });
          expect({ status: retried.status, id: retried.body.id }).toEqual({ status: 202, id: runId });
          return queue.getJobState(runJobId(runId));
        },
        (state) => state === 'waiting',
        'the retry to enqueue the run',
      );
      // Retried again: the job exists, none is added.
      await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'stored-not-enqueued' });
      expect(await queue.getJobCounts('waiting')).toEqual({ waiting: 1 });
    } finally {
      await queue.close();
    }
  }, 30_000);

  it('store down: a trigger and a read answer 503 STORE_UNAVAILABLE with Retry-After, never 500', async () => {
    const accepted = await startRun(url, workflowId);
    expect(accepted.status).toBe(202);
    await ferret.stop();
    const trigger = await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'while-the-store-is-down' });
    expect(trigger.status).toBe(503);
    expect(trigger.body).toMatchObject({ statusCode: 503, code: 'STORE_UNAVAILABLE' });
    expect(Number(trigger.headers.get('retry-after'))).toBeGreaterThan(0);
    const read = await api<RunView & { code?: string }>(url, 'GET', `/runs/${accepted.body.id}`);
    expect(read.status).toBe(503);
    expect(read.body.code).toBe('STORE_UNAVAILABLE');
    expect(Number(read.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 60_000);
});
