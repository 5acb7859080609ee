import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  APP_CONFIG,
  openWorker,
  redisConnectionOptions,
  ToolsetRefresher,
  ToolsetRefreshRequests,
  ToolsetRepository,
  type AppConfig,
  type ToolsetRefreshJob,
} from '#workflow/nest';

/** Refreshes of different toolsets taken at once by one worker. */
const CONCURRENCY = 2;
/** A periodic refresh's lock outlives a crashed holder by this long at most (a listing is bounded far below it). */
const LOCK_TTL_MS = 5 * 60_000;
/** Deletes the lock only if it is still ours (it may have expired and been taken since). */
const RELEASE_LOCK = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/** What a job did (its return value, visible in BullMQ tooling and to tests through QueueEvents). */
export type RefreshJobOutcome = 'refreshed' | 'busy' | 'unscheduled' | 'failed';

/**
 * Takes the snapshots asked for after `notifications/tools/list_changed` (ToolsetRefreshRequests):
 * one job per burst and toolset, on whichever worker is free; and the periodic refreshes of
 * toolsets with a `refreshIntervalMs` (one BullMQ job scheduler per toolset: one job per interval
 * whatever the number of workers). A periodic refresh holds a Redis lock on its toolset, so a
 * slow one is never doubled by the next interval's job on another worker: that job is skipped.
 * A failed listing is logged and left for the next notification, interval or manual refresh.
 */
@Injectable()
export class ToolsetRefreshWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolsetRefreshWorker.name);
  private worker?: Worker<ToolsetRefreshJob, RefreshJobOutcome>;
  /** For the periodic refreshes' locks; opened on the first one. */
  private locks?: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly refresher: ToolsetRefresher,
    private readonly toolsets: ToolsetRepository,
    private readonly requests: ToolsetRefreshRequests,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = openWorker<ToolsetRefreshJob, RefreshJobOutcome>(
      this.config,
      'toolsetRefresh',
      (job) => (job.data.scheduled ? this.scheduled(job.data.toolsetId) : this.refresh(job.data.toolsetId, 'list_changed')),
      { concurrency: CONCURRENCY },
    );
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'toolset refresh worker error'));
    // Not awaited: with Redis away the worker still starts.
    this.reconcileSchedules().catch((error: unknown) => this.logger.warn({ err: error }, 'periodic toolset refreshes not reconciled'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    this.locks?.disconnect();
  }

  /**
   * The stored toolsets are the truth: a schedule the API could not set (Redis away) is set, one
   * left behind by a toolset gone or changed is corrected. Idempotent, so every worker may do it.
   */
  private async reconcileSchedules(): Promise<void> {
    const [wanted, existing] = await Promise.all([this.toolsets.refreshIntervals(), this.requests.schedules()]);
    for (const [toolsetId, every] of wanted) if (existing.get(toolsetId) !== every) await this.requests.schedule(toolsetId, every);
    for (const toolsetId of existing.keys()) if (!wanted.has(toolsetId)) await this.requests.schedule(toolsetId, undefined);
  }

  private async scheduled(toolsetId: string): Promise<RefreshJobOutcome> {
    const toolset = await this.toolsets.findById(toolsetId);
    if (toolset?.refreshIntervalMs === undefined) {
      await this.requests.schedule(toolsetId, undefined);
      return 'unscheduled';
    }
    if (!this.locks) {
      this.locks = new Redis(redisConnectionOptions(this.config));
      this.locks.on('error', (error) => this.logger.warn({ err: error }, 'toolset refresh lock connection error'));
    }
    const redis = this.locks;
    const lock = `${this.config.queuePrefix}:toolset-refresh-lock:${toolsetId}`;
    const token = randomUUID();
    if ((await redis.set(lock, token, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') return 'busy';
    try {
      return await this.refresh(toolsetId, 'scheduled');
    } finally {
      await redis.eval(RELEASE_LOCK, 1, lock, token);
    }
  }

  private async refresh(toolsetId: string, source: 'list_changed' | 'scheduled'): Promise<RefreshJobOutcome> {
    try {
      const outcome = await this.refresher.refresh(toolsetId, source);
      if (outcome.status === 'changed') this.logger.log({ toolsetId, source, ...outcome }, 'toolset refreshed');
      return 'refreshed';
    } catch (error) {
      this.logger.warn({ err: error, toolsetId, source }, 'toolset refresh failed');
      return 'failed';
    }
  }
}
