import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, RunHistoryRepository, ToolCallRepository, type AppConfig } from '#workflow/nest';
import { PeriodicJob } from '../periodic/periodic-job.js';

const RETENTION_SCHEDULER_ID = 'prune-finished-runs';

/**
 * Retention of finished runs (RUN_RETENTION_MAX_AGE / RUN_RETENTION_MAX_COUNT), a PeriodicJob
 * (one pass at a time over all workers). A pass is bounded in time (half the
 * interval, at most 20 s) and in batch size, so it never holds the store long; what it leaves, the
 * next takes. With retention off (both limits 0) the scheduler is removed.
 */
@Injectable()
export class RunRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunRetention.name);
  private job?: PeriodicJob;

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
    this.job = new PeriodicJob(
      this.config,
      {
        queue: 'runRetention',
        schedulerId: RETENTION_SCHEDULER_ID,
        jobName: 'prune',
        everyMs: this.enabled ? this.config.retention.intervalMs : 0,
        keepFailed: 10,
        run: () => this.prune(),
      },
      this.logger,
    );
    void this.job.schedule();
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
    await this.job?.close();
  }
}
