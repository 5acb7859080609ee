import { Queue, Worker, type Processor, type QueueOptions, type WorkerOptions } from 'bullmq';
import type { AppConfig } from '../config/app-config.js';
import { cronRepeatStrategy } from './cron-repeat.js';
import { redisConnectionOptions } from './run-queue.js';

/**
 * How the side that adds jobs (and sets job schedulers) meets a Redis outage: `fail` at once, the
 * caller deciding what a refused job means (the API answers, the sweep enqueues later); `retry-once`,
 * ioredis holding the command while it reconnects, then one retry (fire-and-forget requests); `wait`
 * until Redis is back (the schedulers of periodic work, set by workers). Workers always wait.
 */
type WhileRedisAway = 'fail' | 'retry-once' | 'wait';

interface QueueEntry {
  /** The BullMQ queue name, under the configured `QUEUE_PREFIX`. */
  name: string;
  whileRedisAway: WhileRedisAway;
  /** BullMQ settings both sides need alike (schedule firings: cron patterns read by croner). */
  settings?: QueueOptions['settings'];
}

/**
 * Every BullMQ queue of mcpflow, the one place that knows their names and connection options (as
 * immich's job repository does): a new kind of job is one more entry here, then `openQueue` where
 * jobs are added and `openWorker` where they are taken. Whoever opens a queue or worker closes it.
 */
export const QUEUES = {
  /** The API ↔ worker contract: one job per run (its id; the state lives in MongoDB), and one per scheduled resume. */
  runs: { name: 'runs', whileRedisAway: 'fail' },
  /** Firings of schedules: BullMQ job schedulers add one job per firing, one worker takes each. */
  scheduleFirings: { name: 'schedule-firings', whileRedisAway: 'fail', settings: { repeatStrategy: cronRepeatStrategy } },
  /** Background snapshots after `notifications/tools/list_changed`, and the periodic refreshes of toolsets. */
  toolsetRefresh: { name: 'toolset-refresh', whileRedisAway: 'retry-once' },
  /** Periodic toolset health checks: one scheduled job per interval, one active job across all workers. */
  toolsetHealth: { name: 'toolset-health', whileRedisAway: 'wait' },
  /** Retention of finished runs: one scheduled pass per interval, one active pass across all workers. */
  runRetention: { name: 'run-retention', whileRedisAway: 'wait' },
} as const satisfies Record<string, QueueEntry>;

export type QueueKind = keyof typeof QUEUES;

/** What a consumer tunes itself; connection, prefix and settings come from its queue's entry. */
export type WorkerTuning = Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>;

type QueueConfig = Pick<AppConfig, 'redisUrl' | 'queuePrefix'>;

function connectionFor(config: QueueConfig, whileRedisAway: WhileRedisAway) {
  if (whileRedisAway === 'wait') return redisConnectionOptions(config, true);
  const connection = redisConnectionOptions(config);
  return whileRedisAway === 'fail' ? { ...connection, enableOfflineQueue: false } : connection;
}

function settingsOf(entry: QueueEntry): Pick<QueueOptions, 'settings'> {
  return entry.settings ? { settings: entry.settings } : {};
}

/** The queue of `kind`, for adding jobs and setting job schedulers; a connection of its own. */
export function openQueue<Data>(config: QueueConfig, kind: QueueKind): Queue<Data> {
  const entry: QueueEntry = QUEUES[kind];
  return new Queue<Data>(entry.name, {
    connection: connectionFor(config, entry.whileRedisAway),
    prefix: config.queuePrefix,
    ...settingsOf(entry),
  });
}

/** A consumer of `kind`'s jobs; it waits for Redis forever (BullMQ's advice for workers). */
export function openWorker<Data, Result>(
  config: QueueConfig,
  kind: QueueKind,
  processor: Processor<Data, Result>,
  tuning: WorkerTuning,
): Worker<Data, Result> {
  const entry: QueueEntry = QUEUES[kind];
  return new Worker<Data, Result>(entry.name, processor, {
    connection: redisConnectionOptions(config, true),
    prefix: config.queuePrefix,
    ...settingsOf(entry),
    ...tuning,
  });
}

/**
 * What a processor throws to hand its job back to the head of the queue without spending one of
 * its attempts, after a rate limit was set (`RunQueueProducer.pauseTaking`): BullMQ moves the job
 * back to `wait` and its workers take nothing until the limit expires.
 */
export function handBackWhileRateLimited(): Error {
  return Worker.RateLimitError();
}
