import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import type { Job, Worker } from 'bullmq';
import { APP_CONFIG, Metrics, openWorker, type AppConfig, type FiringOutcome, type ScheduleFiringJob } from '#workflow/nest';
import { ScheduleFiring } from './schedule-firing.js';
import { ScheduleReconciler } from './schedule-reconciler.js';

/** Firings taken at once by one worker (each is a few MongoDB round trips). */
const CONCURRENCY = 5;

/** The time a firing was due: BullMQ names a scheduler's job `repeat:<scheduler id>:<due millis>`. */
export function dueTimeOf(job: Pick<Job, 'id' | 'timestamp'>): Date {
  const millis = Number(job.id?.slice(job.id.lastIndexOf(':') + 1));
  return new Date(Number.isFinite(millis) && millis > 0 ? millis : job.timestamp);
}

/**
 * Takes schedule firings off their BullMQ queue (one worker per firing, however many run) and
 * hands each to ScheduleFiring. The job schedulers themselves advance when a firing is taken, so a
 * restart loses none: a firing due while every worker was down waits in Redis and is taken once
 * a worker is back — one firing, not one per missed interval (BullMQ keeps one pending job per
 * scheduler), which `catchUp` then runs or skips.
 */
@Injectable()
export class ScheduleWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ScheduleWorker.name);
  private worker?: Worker<ScheduleFiringJob, FiringOutcome>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly firing: ScheduleFiring,
    private readonly reconciler: ScheduleReconciler,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    const { recovery } = this.config;
    this.worker = openWorker<ScheduleFiringJob, FiringOutcome>(this.config, 'scheduleFirings', (job) => this.take(job), {
      concurrency: CONCURRENCY,
      lockDuration: recovery.lockDurationMs,
      stalledInterval: recovery.stalledIntervalMs,
      maxStalledCount: recovery.maxStalledCount,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'schedule worker error'));
    this.reconciler.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.reconciler.stop();
    await this.worker?.close();
  }

  private async take(job: Job<ScheduleFiringJob>): Promise<FiringOutcome> {
    const dueAt = dueTimeOf(job);
    const outcome = await this.firing.fire({ scheduleId: job.data.scheduleId, dueAt, takenAt: new Date() });
    this.metrics.scheduleFired(outcome);
    if (outcome !== 'started') this.logger.log({ scheduleId: job.data.scheduleId, dueAt, outcome }, 'schedule firing started no run');
    return outcome;
  }
}
