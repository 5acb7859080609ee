import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, redisConnectionOptions, runEventsChannel, type AppConfig, type RunStreamEvent } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';

type Listener = (event: RunStreamEvent) => void;

/** How long a subscriber waits for Redis to confirm; beyond it, callers rely on polling MongoDB. */
const SUBSCRIBE_TIMEOUT_MS = 1000;

/**
 * Live run events for this API process: one Redis subscriber connection shared by every
 * waiter and SSE stream, one channel subscription per run however many listen to it.
 */
@Injectable()
export class RunEventsHub implements OnApplicationShutdown {
  private readonly logger = new Logger(RunEventsHub.name);
  private readonly subscriber: Redis;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly subscribing = new Map<string, Promise<unknown>>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisConnection,
  ) {
    // Commands queue while Redis is away and ioredis re-subscribes on reconnect.
    this.subscriber = new Redis({ ...redisConnectionOptions(config, true) });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => this.dispatch(channel, message));
  }

  /** Listens to one run's events; resolves once Redis confirmed (or gave up waiting). Returns the unsubscribe. */
  async subscribe(runId: string, listener: Listener): Promise<() => void> {
    const channel = runEventsChannel(this.config.queuePrefix, runId);
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      const pending = this.subscriber.subscribe(channel).catch(() => undefined);
      this.subscribing.set(channel, pending);
      void pending.finally(() => this.subscribing.delete(channel));
    }
    set.add(listener);
    const pending = this.subscribing.get(channel);
    if (pending) await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_TIMEOUT_MS).unref())]);
    const listeners = set;
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.listeners.get(channel) === listeners) {
        this.listeners.delete(channel);
        this.subscriber.unsubscribe(channel).catch(() => undefined);
      }
    };
  }

  /** Publishes an event the API itself causes (a queued run canceled); best effort. */
  async publish(event: RunStreamEvent): Promise<void> {
    try {
      await this.redis.client.publish(runEventsChannel(this.config.queuePrefix, event.runId), JSON.stringify(event));
    } catch (error) {
      this.logger.warn({ err: error, runId: event.runId }, 'could not publish a run event (listeners fall back to polling)');
    }
  }

  onApplicationShutdown(): void {
    this.subscriber.disconnect();
  }

  private dispatch(channel: string, message: string): void {
    const listeners = this.listeners.get(channel);
    if (!listeners) return;
    let event: RunStreamEvent;
    try {
      event = JSON.parse(message) as RunStreamEvent;
    } catch {
      return;
    }
    for (const listener of [...listeners]) listener(event);
  }
}
