import { afterAll, describe, expect, it } from '@jest/globals';
import { startRedis } from '../support/services.js';
import { dropTestData, testConfig } from '../support/stack.js';
import { spawnWorker } from '../support/worker-process.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM is the orchestrator's "stop now": a worker must exit even when what a graceful close
 * talks to (Redis) is gone, or it lingers until SIGKILL, holding its slot (and, once a Redis comes
 * back on that port, pushing stale series and taking jobs with an old build).
 */
describe('worker shutdown', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('exits on SIGTERM with Redis gone, within its grace period and the close deadline after it', async () => {
    const redis = await startRedis();
    const config = testConfig({ REDIS_URL: redis.url, WORKER_SHUTDOWN_GRACE_MS: '1000' });
    const worker = await spawnWorker(config, { WORKER_CLOSE_DEADLINE_MS: '2000' });
    cleanups.push(
      async () => worker.kill('SIGKILL'),
      () => dropTestData({ ...config, redisUrl: process.env.REDIS_URL as string }),
    );
    await redis.stop();
    await sleep(500);
    const began = Date.now();
    worker.kill('SIGTERM');
    const outcome = await Promise.race([worker.exited.then((code) => ({ code })), sleep(15_000).then(() => 'still running' as const)]);
    expect(outcome).not.toBe('still running');
    // Grace (1 s) + deadline (2 s), with room for a loaded machine; the exit code says it was cut short.
    expect(Date.now() - began).toBeLessThan(9_000);
    expect(outcome).toEqual({ code: 1 });
    expect(worker.output()).toContain('did not close within');
  }, 40_000);
});
