import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, redisConnectionOptions, runCancelChannel, type AppConfig } from '#workflow/nest';
import { ActiveRuns } from './active-runs.js';

/**
 * Carries `POST /runs/:id/cancel` to the worker that holds the run: every worker subscribes to
 * one channel and stops the run if it is one of its own. A message missed while Redis was away
 * is caught by the sweep's check of `cancelRequestedAt` in MongoDB.
 */
@Injectable()
export class CancelListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CancelListener.name);
  private readonly subscriber: Redis;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly active: ActiveRuns,
  ) {
    this.subscriber = new Redis(redisConnectionOptions(config, true));
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (_channel: string, runId: string) => {
      if (this.active.stop(runId, 'cancel')) this.logger.log({ runId }, 'cancel requested: stopping the run');
    });
  }

  /** Not awaited: with Redis away the worker still starts; ioredis subscribes once it connects. */
  onApplicationBootstrap(): void {
    this.subscriber
      .subscribe(runCancelChannel(this.config.queuePrefix))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'cancel channel not subscribed'));
  }

  onApplicationShutdown(): void {
    this.subscriber.disconnect();
  }
}
