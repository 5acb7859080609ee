import { Injectable, Logger } from '@nestjs/common';
import { ScheduleQueue, ScheduleRepository, type ScheduleTiming } from '#workflow/nest';

/** How often a worker compares the schedules in MongoDB with the job schedulers in Redis. */
const RECONCILE_INTERVAL_MS = 60_000;

const sameTiming = (a: ScheduleTiming, b: ScheduleTiming) => JSON.stringify(a) === JSON.stringify(b);

/**
 * MongoDB holds the schedules, Redis their timing. They can part: a save while Redis was away,
 * a Redis restart without persistence. At start and every minute each worker sets the job
 * scheduler of every enabled schedule that has none (or another timing) and removes those of
 * schedules that are gone or disabled. Redis is read before MongoDB, so a schedule created in
 * between is never taken for an orphan. Every worker may do it at once: setting a scheduler is an
 * upsert under the schedule's id.
 */
@Injectable()
export class ScheduleReconciler {
  private readonly logger = new Logger(ScheduleReconciler.name);
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly queue: ScheduleQueue,
  ) {}

  start(): void {
    const pass = () => void this.reconcile().catch((error: unknown) => this.logger.warn({ err: error }, 'schedules not reconciled'));
    pass();
    this.timer = setInterval(pass, RECONCILE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async reconcile(): Promise<void> {
    const stored = new Map((await this.queue.schedulers()).map((scheduler) => [scheduler.scheduleId, scheduler.timing]));
    const enabled = await this.schedules.allEnabled();
    let set = 0;
    for (const schedule of enabled) {
      const timing = stored.get(schedule.id);
      stored.delete(schedule.id);
      if (timing && sameTiming(timing, schedule.timing)) continue;
      await this.queue.set(schedule);
      set++;
    }
    for (const orphan of stored.keys()) await this.queue.remove(orphan);
    if (set > 0 || stored.size > 0) this.logger.log({ set, removed: stored.size }, 'schedules reconciled with Redis');
  }
}
