import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppConfig, RunView } from '#workflow/nest';
import { createWorkflow, FAST_RECOVERY, startRun, waitForRun } from '../support/runs.js';
import { startRedis, type StartedService } from '../support/services.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

const WAIT_MS = 1500;

const waitFlow = {
  name: 'wait through a Redis restart',
  nodes: [
    { id: 'start', type: 'start' },
    { id: 'pause', type: 'wait', inputs: { durationMs: { value: WAIT_MS } } },
    { id: 'end', type: 'end', inputs: { resumedAt: { ref: 'pause.resumedAt' } } },
  ],
  edges: [
    { source: 'start', target: 'pause' },
    { source: 'pause', target: 'end' },
  ],
};

/**
 * A `wait` node's resume is a delayed BullMQ job. Redis restarted with no persistence loses it;
 * the worker's recovery sweep sees the waiting run past its `resumeAt` with no live wake job and
 * schedules it again, so the run ends instead of waiting forever.
 */
describe('durability: a waiting run’s scheduled resume outlives a Redis restart', () => {
  let redis: StartedService;
  let config: AppConfig;
  let apiUrl: string;
  let closeAll: () => Promise<void>;

  beforeAll(async () => {
    redis = await startRedis();
    config = testConfig({ ...FAST_RECOVERY, REDIS_URL: redis.url });
    const api = await startApi(config);
    const worker = await startWorker(config);
    apiUrl = api.url;
    closeAll = async () => {
      await worker.close();
      await api.app.close();
    };
  }, 60_000);
  afterAll(async () => {
    await closeAll();
    await dropTestData(config);
    await redis.stop();
  }, 30_000);

  it('Redis restarted empty while the run waits: the run still resumes after its wait and succeeds', async () => {
    const workflowId = await createWorkflow(apiUrl, waitFlow);
    const accepted = await startRun(apiUrl, workflowId);
    expect(accepted.status).toBe(202);
    const waiting = await waitForRun(
      apiUrl,
      accepted.body.id,
      20_000,
      (run: RunView) => run.status !== 'queued' && run.status !== 'running',
    );
    expect(waiting.status).toBe('waiting');
    const resumeAt = Date.parse(String(waiting.inputRequest?.resumeAt));

    // A restart with `--save ''`: the delayed wake job is gone with the rest of Redis's data.
    await redis.stop();
    redis = await startRedis(redis.port);

    const finished = await waitForRun(apiUrl, accepted.body.id, 30_000);
    expect(finished.status).toBe('succeeded');
    const resumedAt = Date.parse(String((finished.outputs as { resumedAt?: unknown }).resumedAt));
    expect(resumedAt).toBeGreaterThanOrEqual(resumeAt);
  }, 60_000);
});
