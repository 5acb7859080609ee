import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { openQueue } from '../queue/job-queues.js';
import type { ScheduleRecord, ScheduleTiming } from '../persistence/schedule.repository.js';

export interface ScheduleFiringJob {
  scheduleId: string;
}

/** No colon: BullMQ reads colon-separated scheduler keys as legacy repeatable-job keys. */
const SCHEDULER_PREFIX = 'schedule-';

export function schedulerIdOf(scheduleId: string): string {
  return `${SCHEDULER_PREFIX}${scheduleId}`;
}

/** A scheduler as BullMQ holds it (for the workers' reconciliation). */
export interface StoredScheduler {
  scheduleId: string;
  timing: ScheduleTiming;
  next?: number;
}

function repeatOf(timing: ScheduleTiming) {
  return 'cron' in timing ? { pattern: timing.cron, ...(timing.timezone && { tz: timing.timezone }) } : { every: timing.everyMs };
}

/**
 * The one owner of schedule timing in Redis: `set` upserts the BullMQ job scheduler of a
 * schedule (same id from every process, so one schedule fires once however many API processes
 * and workers run), `remove` drops it. A firing job carries only the schedule id: what it starts
 * is read from MongoDB when it is taken.
 */
@Injectable()
export class ScheduleQueue implements OnApplicationShutdown {
  private readonly logger = new Logger(ScheduleQueue.name);
  private queue?: Queue<ScheduleFiringJob>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Enabled: its scheduler fires on its timing; disabled: it has none. */
  async set(schedule: Pick<ScheduleRecord, 'id' | 'timing' | 'enabled'>): Promise<void> {
    if (!schedule.enabled) return this.remove(schedule.id);
    await this.open().upsertJobScheduler(schedulerIdOf(schedule.id), repeatOf(schedule.timing), {
      name: 'fire',
      data: { scheduleId: schedule.id },
      // Finished firings are recorded as runs; failed ones stay a day to explain themselves.
      opts: { removeOnComplete: true, removeOnFail: { age: 24 * 3600 }, attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
    });
  }

  async remove(scheduleId: string): Promise<void> {
    await this.open().removeJobScheduler(schedulerIdOf(scheduleId));
  }

  /** When BullMQ will fire the schedule next (undefined: no scheduler). */
  async nextRunAt(scheduleId: string): Promise<Date | undefined> {
    const scheduler = await this.open().getJobScheduler(schedulerIdOf(scheduleId));
    return scheduler?.next ? new Date(Number(scheduler.next)) : undefined;
  }

  async schedulers(): Promise<StoredScheduler[]> {
    const found: StoredScheduler[] = [];
    for (const scheduler of await this.open().getJobSchedulers(0, -1)) {
      const key = scheduler.id ?? scheduler.key;
      if (!key?.startsWith(SCHEDULER_PREFIX)) continue;
      const timing: ScheduleTiming = scheduler.pattern
        ? { cron: scheduler.pattern, ...(scheduler.tz && { timezone: scheduler.tz }) }
        : { everyMs: Number(scheduler.every) };
      found.push({ scheduleId: key.slice(SCHEDULER_PREFIX.length), timing, ...(scheduler.next && { next: Number(scheduler.next) }) });
    }
    return found;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
  }

  private open(): Queue<ScheduleFiringJob> {
    if (!this.queue) {
      this.queue = openQueue<ScheduleFiringJob>(this.config, 'scheduleFirings');
      this.queue.on('error', (error) => this.logger.warn({ err: error }, 'schedule queue error'));
    }
    return this.queue;
  }
}
