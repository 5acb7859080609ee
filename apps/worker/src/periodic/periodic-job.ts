import type { Logger } from '@nestjs/common';
import type { Queue, Worker } from 'bullmq';
import { openQueue, openWorker, QUEUES, type AppConfig, type QueueKind } from '#workflow/nest';

export interface PeriodicJobSpec {
  /** The queue the job lives on (one per kind of periodic work). */
  queue: QueueKind;
  /** The job scheduler's id: every worker upserts the same one, so one job per interval in all. */
  schedulerId: string;
  jobName: string;
  /** The interval; 0 turns the work off, and removes the scheduler so that no worker runs it. */
  everyMs: number;
  /** Failed jobs kept for inspection. */
  keepFailed: number;
  /** One pass; what it returns is the job's return value (visible in BullMQ tooling). */
  run: () => Promise<unknown>;
}

/**
 * Periodic work shared by every worker, scheduled and excluded by BullMQ: each worker upserts the
 * same job scheduler (one job per interval however many workers run), and the queue's global
 * concurrency of 1 keeps a second pass from starting, on any worker, while one goes. Starting does
 * not wait for Redis: with Redis away the worker still starts, and the schedule goes through once
 * it is back.
 */
export class PeriodicJob {
  private readonly queue: Queue;
  private worker?: Worker;

  constructor(
    config: AppConfig,
    private readonly spec: PeriodicJobSpec,
    private readonly logger: Logger,
  ) {
    const { name } = QUEUES[spec.queue];
    this.queue = openQueue(config, spec.queue);
    this.queue.on('error', (error) => this.logger.warn({ err: error }, `${name} queue error`));
    if (spec.everyMs > 0) {
      this.worker = openWorker(config, spec.queue, () => spec.run(), { concurrency: 1 });
      this.worker.on('error', (error) => this.logger.warn({ err: error }, `${name} worker error`));
    }
  }

  /** Upserts (or, when off, removes) the scheduler; not awaited by callers. */
  schedule(): Promise<void> {
    const { schedulerId, everyMs, jobName, keepFailed } = this.spec;
    const scheduled =
      everyMs > 0
        ? this.queue
            .setGlobalConcurrency(1)
            .then(() =>
              this.queue.upsertJobScheduler(
                schedulerId,
                { every: everyMs },
                { name: jobName, opts: { removeOnComplete: true, removeOnFail: keepFailed } },
              ),
            )
        : this.queue.removeJobScheduler(schedulerId);
    return scheduled.then(
      () => undefined,
      (error: unknown) => this.logger.warn({ err: error }, `${QUEUES[this.spec.queue].name} schedule not updated`),
    );
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
  }
}
