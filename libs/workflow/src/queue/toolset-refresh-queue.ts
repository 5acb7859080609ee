import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bullmq';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { openQueue } from './job-queues.js';

/** A burst of notifications within this long becomes one refresh. */
export const REFRESH_COALESCE_MS = 1_000;

export interface ToolsetRefreshJob {
  toolsetId: string;
  /** Set on the jobs of a toolset's periodic refresh (`refreshIntervalMs`); absent after list_changed. */
  scheduled?: true;
}

/** No colon: BullMQ reads colon-separated scheduler keys as legacy repeatable-job keys. */
const SCHEDULER_PREFIX = 'refresh-every-';

/** The job scheduler of one toolset's periodic refresh: one id per toolset, so every process upserting it means one schedule. */
export function refreshSchedulerId(toolsetId: string): string {
  return `${SCHEDULER_PREFIX}${toolsetId}`;
}

/**
 * Where any process (API or worker) that hears `notifications/tools/list_changed` asks for a new
 * snapshot. One delayed BullMQ job per toolset, deduplicated by the toolset's id: every further
 * notification — from this process or another, from run pools, ad-hoc calls or health checks —
 * joins the job already waiting, so a burst costs one listing. Fire and forget: a lost request
 * only delays the snapshot until the next notification or refresh.
 */
@Injectable()
export class ToolsetRefreshRequests implements OnApplicationShutdown {
  private readonly logger = new Logger(ToolsetRefreshRequests.name);
  private queue?: Queue<ToolsetRefreshJob>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  request(toolsetId: string): void {
    this.queue ??= this.open();
    this.queue
      .add(
        'refresh',
        { toolsetId },
        { delay: REFRESH_COALESCE_MS, deduplication: { id: toolsetId }, removeOnComplete: true, removeOnFail: 100 },
      )
      .catch((error: unknown) => this.logger.warn({ err: error, toolsetId }, 'could not ask for a toolset refresh'));
  }

  /**
   * Sets (or, without `everyMs`, removes) the toolset's periodic refresh: a BullMQ job scheduler
   * that adds one job per interval however many processes set it, taken by one worker.
   */
  async schedule(toolsetId: string, everyMs: number | undefined): Promise<void> {
    this.queue ??= this.open();
    const id = refreshSchedulerId(toolsetId);
    if (everyMs === undefined) {
      await this.queue.removeJobScheduler(id);
      return;
    }
    await this.queue.upsertJobScheduler(
      id,
      { every: everyMs },
      { name: 'scheduled', data: { toolsetId, scheduled: true }, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  /** The toolsets that have a schedule, with its interval (the workers reconcile them with the stored toolsets). */
  async schedules(): Promise<Map<string, number>> {
    this.queue ??= this.open();
    const found = new Map<string, number>();
    for (const scheduler of await this.queue.getJobSchedulers(0, -1)) {
      const toolsetId = scheduler.key.startsWith(SCHEDULER_PREFIX) ? scheduler.key.slice(SCHEDULER_PREFIX.length) : undefined;
      if (toolsetId && scheduler.every) found.set(toolsetId, Number(scheduler.every));
    }
    return found;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
  }

  private open(): Queue<ToolsetRefreshJob> {
    const queue = openQueue<ToolsetRefreshJob>(this.config, 'toolsetRefresh');
    queue.on('error', (error) => this.logger.warn({ err: error }, 'toolset refresh queue error'));
    return queue;
  }
}
