import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { Worker } from 'bullmq';
import {
  APP_CONFIG,
  redisConnectionOptions,
  TOOLSET_REFRESH_QUEUE_NAME,
  ToolsetRefresher,
  type AppConfig,
  type ToolsetRefreshJob,
} from '#workflow/nest';

/** Refreshes of different toolsets taken at once by one worker. */
const CONCURRENCY = 2;

/**
 * Takes the snapshots asked for after `notifications/tools/list_changed` (ToolsetRefreshRequests):
 * one job per burst and toolset, on whichever worker is free; a failed listing is logged and left
 * for the next notification or refresh.
 */
@Injectable()
export class ToolsetRefreshWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ToolsetRefreshWorker.name);
  private worker?: Worker<ToolsetRefreshJob>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly refresher: ToolsetRefresher,
  ) {}

  onApplicationBootstrap(): void {
    this.worker = new Worker<ToolsetRefreshJob>(TOOLSET_REFRESH_QUEUE_NAME, (job) => this.refresh(job.data.toolsetId), {
      connection: redisConnectionOptions(this.config, true),
      prefix: this.config.queuePrefix,
      concurrency: CONCURRENCY,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'toolset refresh worker error'));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }

  private async refresh(toolsetId: string): Promise<void> {
    try {
      const outcome = await this.refresher.refresh(toolsetId, 'list_changed');
      if (outcome.status === 'changed') this.logger.log({ toolsetId, ...outcome }, 'toolset refreshed after tools/list_changed');
    } catch (error) {
      this.logger.warn({ err: error, toolsetId }, 'toolset refresh after tools/list_changed failed');
    }
  }
}
