import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, runCancelChannel, toRunView, type AppConfig, type CancelSignals, type RunRecord } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';
import { RunEventsHub } from './run-events-hub.js';

/** The API's side of a cancel (RunCancellation): the workers' cancel channel and `run.finished` on the run's event stream. */
@Injectable()
export class ApiCancelSignals implements CancelSignals {
  private readonly logger = new Logger(ApiCancelSignals.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hub: RunEventsHub,
    private readonly redis: RedisConnection,
  ) {}

  async notifyWorkers(runId: string): Promise<void> {
    await this.redis.client.publish(runCancelChannel(this.config.queuePrefix), runId).catch((error: unknown) => {
      this.logger.warn({ err: error, runId }, 'cancel message not published (Redis unreachable): the worker sees the request in MongoDB');
    });
  }

  async finished(record: RunRecord): Promise<void> {
    const run = toRunView(record);
    await this.hub.publish({ type: 'run.finished', runId: run.id, at: run.finishedAt ?? new Date().toISOString(), run });
  }
}
