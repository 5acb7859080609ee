import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Queue } from 'bullmq';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { redisConnectionOptions } from './run-queue.js';

/** Background snapshots after `notifications/tools/list_changed`, taken by the workers. */
export const TOOLSET_REFRESH_QUEUE_NAME = 'toolset-refresh';

/** A burst of notifications within this long becomes one refresh. */
export const REFRESH_COALESCE_MS = 1_000;

export interface ToolsetRefreshJob {
  toolsetId: string;
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

  async onApplicationShutdown(): Promise<void> {
    await this.queue?.close();
  }

  private open(): Queue<ToolsetRefreshJob> {
    const queue = new Queue<ToolsetRefreshJob>(TOOLSET_REFRESH_QUEUE_NAME, {
      connection: redisConnectionOptions(this.config),
      prefix: this.config.queuePrefix,
    });
    queue.on('error', (error) => this.logger.warn({ err: error }, 'toolset refresh queue error'));
    return queue;
  }
}
