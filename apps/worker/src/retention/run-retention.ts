import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import { APP_CONFIG, redisConnectionOptions, RunHistoryRepository, type AppConfig } from '#workflow';

/** BullMQ queue of the housekeeping job; one scheduler in it, shared by every worker process. */
export const RETENTION_QUEUE_NAME = 'maintenance';
const RETENTION_SCHEDULER_ID = 'run-retention';

/**
 * Retention of finished runs (RUN_RETENTION_MAX_AGE / RUN_RETENTION_MAX_COUNT). Every worker
 * upserts the same BullMQ job scheduler (one id, so one schedule whatever the number of
 * workers) and consumes its queue with concurrency 1: BullMQ hands each prune job to one worker,
 * under its lock. A pass is bounded in time (half the interval, at most 20 s) and in batch size,
 * so passes never overlap and a pass never holds the store long; what it leaves, the next takes.
 */
@Injectable()
export class RunRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunRetention.name);
  private queue?: Queue;
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly history: RunHistoryRepository,
  ) {}

  get enabled(): boolean {
    const { maxAgeMs, maxCount } = this.config.retention;
    return maxAgeMs > 0 || maxCount > 0;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    const { intervalMs } = this.config.retention;
    const options = { connection: redisConnectionOptions(this.config, true), prefix: this.config.queuePrefix };
    this.queue = new Queue(RETENTION_QUEUE_NAME, options);
    this.queue.on('error', () => undefined);
    // Not awaited: with Redis away the worker still starts; the upsert goes through once it is back.
    this.queue
      .upsertJobScheduler(RETENTION_SCHEDULER_ID, { every: intervalMs }, { name: 'prune', opts: { removeOnComplete: true, removeOnFail: 10 } })
      .catch((error: unknown) => this.logger.warn({ err: error }, 'retention schedule not registered'));
    this.worker = new Worker(RETENTION_QUEUE_NAME, () => this.prune(), { ...options, concurrency: 1 });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'retention worker error'));
  }

  /** One pass; its result is the job's return value (visible in BullMQ tooling). */
  async prune() {
    const { maxAgeMs, maxCount, intervalMs } = this.config.retention;
    const result = await this.history.prune({ maxAgeMs, maxCount }, { budgetMs: Math.min(20_000, intervalMs / 2) });
    if (result.byAge + result.byCount > 0) this.logger.log(result, 'finished runs pruned');
    return result;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
  }
}
