import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { openQueue } from './job-queues.js';
import type { RunJobData } from './run-queue.js';
import { RUN_JOB_OPTIONS, runJobId } from './run-jobs.js';
import { traceCarrier } from '../tracing/tracing.js';

/** The job of one pause's scheduled resume: its own id per pause (`pausedAt`), beside the run's job. */
function wakeJobId(runId: string, pausedAt: Date): string {
  return `${runJobId(runId)}-wake-${pausedAt.getTime()}`;
}

/** Job states in which a worker holds or will pick up the job. */
const LIVE_STATES = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

export type RunJobState = 'live' | 'missing' | 'completed' | 'failed';

/**
 * Puts runs on the BullMQ queue (API on accept, worker sweep on recovery). Its connection fails
 * fast instead of queueing commands while Redis is away: the caller decides what a failed
 * enqueue means (the run stays `queued` in MongoDB and the sweep enqueues it later).
 */
@Injectable()
export class RunQueueProducer implements OnApplicationShutdown {
  readonly queue: Queue<RunJobData>;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'redisUrl' | 'queuePrefix'>) {
    this.queue = openQueue<RunJobData>(config, 'runs');
    // Failures surface on each call; ioredis keeps reconnecting in the background.
    this.queue.on('error', () => undefined);
  }

  async enqueue(runId: string, hint: Omit<RunJobData, 'runId'> = {}): Promise<void> {
    const trace = traceCarrier();
    await this.queue.add('run', { runId, ...hint, ...(trace && { trace }) }, { ...RUN_JOB_OPTIONS, jobId: runJobId(runId) });
  }

  /**
   * A scheduled resume of a waiting run (approval timeout, wait): a delayed job, kept by Redis
   * across restarts of API and workers. Its own id per pause (`pausedAt`), beside the run's job.
   */
  async scheduleWake(runId: string, at: Date, pausedAt: Date, hint: Omit<RunJobData, 'runId' | 'wakeAt'> = {}): Promise<void> {
    const delay = Math.max(0, at.getTime() - Date.now());
    const data = { runId, ...hint, wakeAt: at.toISOString() };
    await this.queue.add('run', data, { ...RUN_JOB_OPTIONS, jobId: wakeJobId(runId, pausedAt), delay });
  }

  /**
   * The recovery sweep's check of an overdue scheduled resume: false when its job is live (it
   * will wake the run); otherwise the job is scheduled again (due now), after dropping a finished
   * one that holds its id, and true. Waking is guarded by the run's state, so a second job is harmless.
   */
  async rescheduleWake(runId: string, at: Date, pausedAt: Date, hint: Omit<RunJobData, 'runId' | 'wakeAt'> = {}): Promise<boolean> {
    const jobId = wakeJobId(runId, pausedAt);
    const state = await this.queue.getJobState(jobId);
    if (LIVE_STATES.has(state)) return false;
    if (state === 'completed' || state === 'failed') await this.queue.remove(jobId);
    await this.scheduleWake(runId, at, pausedAt, hint);
    return true;
  }

  async jobState(runId: string): Promise<RunJobState> {
    const state = await this.queue.getJobState(runJobId(runId));
    if (state === 'unknown') return 'missing';
    if (state === 'completed' || state === 'failed') return state;
    return LIVE_STATES.has(state) ? 'live' : 'missing';
  }

  /** Drops a finished job so the run can be enqueued again under the same id. */
  async removeJob(runId: string): Promise<void> {
    await this.queue.remove(runJobId(runId));
  }

  /**
   * No worker takes a run for `ms` (BullMQ's manual rate limit, shared by every worker of the
   * queue): for a dependency that is down for all of them alike, such as the store.
   */
  async pauseTaking(ms: number): Promise<void> {
    await this.queue.rateLimit(ms);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}
