import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { openQueue, openWorker, QUEUES, type AppConfig, type QueueKind } from '#workflow/nest';
import { dropQueueKeys, testConfig } from '../support/stack.js';
import { until } from '../support/until.js';

const KINDS = Object.keys(QUEUES) as QueueKind[];

/** The one owner of the BullMQ queues (queue/job-queues.ts), against a real Redis. */
describe('job queues', () => {
  let config: AppConfig;
  const opened: Array<Queue | Worker> = [];

  beforeAll(() => {
    config = testConfig();
  });
  afterAll(async () => {
    await Promise.all(opened.map((closable) => closable.close()));
    await dropQueueKeys(config);
  });

  it.each(KINDS)('a job added to %s is taken by its worker, under the configured prefix', async (kind) => {
    const taken: unknown[] = [];
    const queue = openQueue<{ probe: string }>(config, kind);
    const worker = openWorker<{ probe: string }, string>(config, kind, async (job) => (taken.push(job.data), 'done'), { concurrency: 1 });
    opened.push(queue, worker);
    await queue.add('probe', { probe: kind });
    await until(
      () => taken,
      (list) => list.length === 1,
      `the ${kind} job`,
    );
    expect(taken).toEqual([{ probe: kind }]);
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
    try {
      expect((await redis.keys(`${config.queuePrefix}:${QUEUES[kind].name}:*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });

  it('gives each side the connection its entry says: adders of runs and firings fail fast, periodic work and workers wait', () => {
    const connectionOf = (kind: QueueKind) => {
      const queue = openQueue(config, kind);
      opened.push(queue);
      return queue.opts.connection as { maxRetriesPerRequest?: number | null; enableOfflineQueue?: boolean };
    };
    expect(connectionOf('runs')).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false });
    expect(connectionOf('scheduleFirings')).toMatchObject({ maxRetriesPerRequest: 1, enableOfflineQueue: false });
    expect(connectionOf('toolsetRefresh')).toMatchObject({ maxRetriesPerRequest: 1 });
    expect(connectionOf('toolsetRefresh').enableOfflineQueue).toBeUndefined();
    expect(connectionOf('toolsetHealth')).toMatchObject({ maxRetriesPerRequest: null });
    expect(connectionOf('runRetention')).toMatchObject({ maxRetriesPerRequest: null });
    const worker = openWorker(config, 'runs', async () => undefined, { concurrency: 3, lockDuration: 4_000, maxStalledCount: 2 });
    opened.push(worker);
    expect(worker.opts).toMatchObject({ concurrency: 3, lockDuration: 4_000, maxStalledCount: 2, prefix: config.queuePrefix });
    expect(worker.opts.connection).toMatchObject({ maxRetriesPerRequest: null });
  });

  it('fires a schedule by the cron pattern croner reads, on both sides of the firings queue', async () => {
    const queue = openQueue<{ scheduleId: string }>(config, 'scheduleFirings');
    const fired: string[] = [];
    const worker = openWorker<{ scheduleId: string }, void>(
      config,
      'scheduleFirings',
      async (job) => void fired.push(job.data.scheduleId),
      { concurrency: 1 },
    );
    opened.push(queue, worker);
    expect(queue.opts.settings?.repeatStrategy).toBe(QUEUES.scheduleFirings.settings.repeatStrategy);
    expect(worker.opts.settings?.repeatStrategy).toBe(QUEUES.scheduleFirings.settings.repeatStrategy);
    // Six fields, seconds first: every second.
    await queue.upsertJobScheduler('schedule-probe', { pattern: '* * * * * *' }, { name: 'fire', data: { scheduleId: 'probe' } });
    await until(
      () => fired,
      (list) => list.length >= 2,
      'two firings',
    );
    await queue.removeJobScheduler('schedule-probe');
    expect(fired.every((id) => id === 'probe')).toBe(true);
  });
});
