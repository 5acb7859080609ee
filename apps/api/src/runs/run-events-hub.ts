import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, runEventsChannel, type AppConfig, type RunStreamEvent } from '#workflow/nest';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';

type Listener = (event: RunStreamEvent) => void;

/**
 * Live run events for this API process, on the process's one Redis subscriber (RedisChannels):
 * one channel per run, shared by every waiter and SSE stream of that run. When Redis does not
 * confirm in time, callers rely on polling MongoDB.
 */
@Injectable()
export class RunEventsHub {
  private readonly logger = new Logger(RunEventsHub.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly channels: RedisChannels,
  ) {}

  /** Listens to one run's events; resolves once Redis confirmed (or gave up waiting). Returns the unsubscribe. */
  subscribe(runId: string, listener: Listener): Promise<() => void> {
    return this.channels.subscribe(runEventsChannel(this.config.queuePrefix, runId), (message) => {
      let event: RunStreamEvent;
      try {
        event = JSON.parse(message) as RunStreamEvent;
      } catch {
        return;
      }
      listener(event);
    });
  }

  /** Publishes an event the API itself causes (a queued run canceled); best effort. */
  async publish(event: RunStreamEvent): Promise<void> {
    try {
      await this.redis.client.publish(runEventsChannel(this.config.queuePrefix, event.runId), JSON.stringify(event));
    } catch (error) {
      this.logger.warn({ err: error, runId: event.runId }, 'could not publish a run event (listeners fall back to polling)');
    }
  }
}
