import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Queue, Worker } from 'bullmq';
import {
  APP_CONFIG,
  redisConnectionOptions,
  RUN_RETENTION_QUEUE_NAME,
  RunHistoryRepository,
  ToolCallRepository,
  type AppConfig,
} from '#workflow/nest';

const RETENTION_SCHEDULER_ID = 'prune-finished-runs';

/**
 * Retention of finished runs (RUN_RETENTION_MAX_AGE / RUN_RETENTION_MAX_COUNT). BullMQ does the
 * scheduling and the exclusion: every worker upserts the same job scheduler (one id, so one job
 * per interval whatever the number of workers), and the queue's global concurrency of 1 keeps a
 * second pass from starting, on any worker, while one goes. A pass is bounded in time (half the
 * interval, at most 20 s) and in batch size, so it never holds the store long; what it leaves, the
 * next takes. With retention off (both limits 0) the scheduler is removed.
 */
@Injectable()
export class RunRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunRetention.name);
  private queue?: Queue;
  private worker?: Worker;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly history: RunHistoryRepository,
    private readonly toolCalls: ToolCallRepository,
  ) {}

  get enabled(): boolean {
    const { maxAgeMs, maxCount, toolCallMaxAgeMs } = this.config.retention;
    return maxAgeMs > 0 || maxCount > 0 || toolCallMaxAgeMs > 0;
  }

  onApplicationBootstrap(): void {
    const options = { connection: redisConnectionOptions(this.config, true), prefix: this.config.queuePrefix };
    const queue = (this.queue = new Queue(RUN_RETENTION_QUEUE_NAME, options));
    queue.on('error', () => undefined);
    // Not awaited: with Redis away the worker still starts; these go through once it is back.
    const scheduled = this.enabled
      ? queue
          .setGlobalConcurrency(1)
          .then(() =>
            queue.upsertJobScheduler(
              RETENTION_SCHEDULER_ID,
              { every: this.config.retention.intervalMs },
              { name: 'prune', opts: { removeOnComplete: true, removeOnFail: 10 } },
            ),
          )
      : queue.removeJobScheduler(RETENTION_SCHEDULER_ID);
    scheduled.catch((error: unknown) => this.logger.warn({ err: error }, 'retention schedule not updated'));
    if (!this.enabled) return;
    this.worker = new Worker(RUN_RETENTION_QUEUE_NAME, () => this.prune(), { ...options, concurrency: 1 });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'retention worker error'));
  }

  /** One pass; its result is the job's return value (visible in BullMQ tooling). */
  async prune() {
    const { maxAgeMs, maxCount, intervalMs } = this.config.retention;
    const result = await this.history.prune({ maxAgeMs, maxCount }, { budgetMs: Math.min(20_000, intervalMs / 2) });
    if (result.byAge + result.byCount > 0) this.logger.log(result, 'finished runs pruned');
    return { ...result, toolCalls: await this.pruneToolCalls() };
  }

  /** Usage records (`tool_calls`) by their own age limit, in the same pass: they belong to no run (ad-hoc calls) or outlive it. */
  private async pruneToolCalls() {
    const { toolCallMaxAgeMs, intervalMs } = this.config.retention;
    if (toolCallMaxAgeMs <= 0) return { removed: 0, complete: true };
    const pruned = await this.toolCalls.pruneOlderThan(
      new Date(Date.now() - toolCallMaxAgeMs),
      Date.now() + Math.min(20_000, intervalMs / 2),
    );
    if (pruned.removed > 0) this.logger.log(pruned, 'tool call records pruned');
    return pruned;
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
  }
}
