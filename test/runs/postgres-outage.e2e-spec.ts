import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { openQueue, runJobId, type AppConfig, type RunView } from '#workflow/nest';
import { api, type JsonResponse } from '../support/http.js';
import { createWorkflow, startRun } from '../support/runs.js';
import { startFerretDb, type StartedService } from '../support/services.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { until } from '../support/until.js';

const pureFlow = {
  name: 'postgres-outage',
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'end', type: 'end' },
  ],
  edges: [{ source: 'start', target: 'end' }],
};

/**
 * FerretDB v1 stays up while its PostgreSQL goes away: FerretDB answers every command with an
 * `InternalError` carrying PostgreSQL's connection failure, which the API answers 503
 * STORE_UNAVAILABLE with Retry-After, never 500 (issue 22; the chaos harness saw these as 500s).
 * The link FerretDB → PostgreSQL runs through a relay that the test cuts, so the test run's
 * PostgreSQL, shared with other suites, keeps running. The first case has no worker (the runs stay
 * queued); the second starts one.
 */
describe('outages: PostgreSQL under FerretDB down', () => {
  let proxy: TcpProxy;
  let ferret: StartedService;
  let url: string;
  let close: () => Promise<void>;
  let workflowId: string;
  let config: AppConfig;

  beforeAll(async () => {
    const postgres = new URL(process.env.FERRETDB_POSTGRESQL_URL ?? '');
    if (!postgres.port) throw new Error('FERRETDB_POSTGRESQL_URL is not set: run the suite with scripts/dev.sh test');
    proxy = await startTcpProxy(Number(postgres.port));
    postgres.host = `127.0.0.1:${proxy.port}`;
    ferret = await startFerretDb({ postgresqlUrl: postgres.toString() });
    config = testConfig({ MONGO_URL: ferret.url });
    const started = await startApi(config);
    url = started.url;
    close = async () => {
      await started.app.close();
      await dropTestData(config).catch(() => undefined);
    };
    workflowId = await createWorkflow(url, pureFlow);
  }, 60_000);
  afterAll(async () => {
    await proxy.restore().catch(() => undefined);
    await close();
    await ferret.stop();
    await proxy.close();
  }, 30_000);

  function expectStoreUnavailable(response: JsonResponse<{ statusCode?: number; code?: string }>) {
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 503, code: 'STORE_UNAVAILABLE' });
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  }

  it('triggers and reads answer 503 STORE_UNAVAILABLE while PostgreSQL is away, and the Idempotency-Key retry is accepted once it is back', async () => {
    const accepted = await startRun(url, workflowId);
    expect(accepted.status).toBe(202);
    await proxy.cut();
    try {
      // The first request meets FerretDB's pooled connections dropped, the next ones a refused dial.
      for (let attempt = 0; attempt < 3; attempt++) {
        expectStoreUnavailable(await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'while-postgres-is-down' }));
        expectStoreUnavailable(await api<RunView & { code?: string }>(url, 'GET', `/runs/${accepted.body.id}`));
      }
    } finally {
      await proxy.restore();
    }
    const retried = await startRun(url, workflowId, {}, '', { 'Idempotency-Key': 'while-postgres-is-down' });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ status: 'queued', workflowId });
  }, 60_000);

  it('a worker that meets the store down hands the run back without spending an attempt, pauses, and runs it once the store is back', async () => {
    const queue: Queue = openQueue(config, 'runs');
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
    let worker: INestApplicationContext | undefined;
    try {
      // The queue paused, the run's job waits while a worker starts against a healthy store.
      await queue.pause();
      const accepted = await startRun(url, workflowId);
      expect(accepted.status).toBe(202);
      worker = await startWorker(config);
      await proxy.cut();
      try {
        await queue.resume();
        // The worker took the job, its claim met PostgreSQL down: BullMQ's rate limit is set for every worker…
        await until(
          () => redis.pttl(`${config.queuePrefix}:runs:limiter`),
          (ttl) => ttl > 0,
          'the workers to pause',
        );
        // …and the job is back in line with all its attempts (BullMQ's backoff would have spent one and delayed it).
        const job = await queue.getJob(runJobId(accepted.body.id));
        expect({ attemptsMade: job?.attemptsMade, state: await job?.getState() }).toEqual({
          attemptsMade: 0,
          state: expect.stringMatching(/^(waiting|active)$/) as unknown as string,
        });
      } finally {
        await proxy.restore();
      }
      const finished = await until(
        () => api<RunView>(url, 'GET', `/runs/${accepted.body.id}`),
        (response) => response.status === 200 && response.body.status === 'succeeded',
        'the run to succeed once PostgreSQL is back',
        30_000,
      );
      expect(finished.body.error).toBeNull();
    } finally {
      await worker?.close();
      await queue.close();
      redis.disconnect();
    }
  }, 90_000);
});
