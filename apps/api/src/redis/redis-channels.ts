import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, redisConnectionOptions, type AppConfig } from '#workflow/nest';

type MessageListener = (message: string, channel: string) => void;

/** How long a first subscriber of a channel waits for Redis to confirm; beyond it, callers go on without. */
const SUBSCRIBE_TIMEOUT_MS = 1000;
/** Channels nobody listens to any more are unsubscribed together, this often: one command for many short waits. */
const UNSUBSCRIBE_BATCH_MS = 500;

/**
 * Redis pub/sub for this API process: one subscriber connection for every channel any feature
 * listens to (run events, MCP tool-list changes…), one Redis subscription per channel however many
 * listen to it. Messages of one connection arrive in the order they were published. Commands queue
 * while Redis is away, and ioredis subscribes again on reconnect.
 */
@Injectable()
export class RedisChannels implements OnApplicationShutdown {
  private readonly subscriber: Redis;
  private readonly listeners = new Map<string, Set<MessageListener>>();
  private readonly subscribing = new Map<string, Promise<unknown>>();
  /** Counts the subscriber's (re)connections: messages published while it was away are lost. */
  private connection = 0;
  /** Channels without listeners, still subscribed until the next batch (a new listener keeps the subscription). */
  private readonly leaving = new Set<string>();
  private leaveTimer: NodeJS.Timeout | undefined;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.subscriber = new Redis({ ...redisConnectionOptions(config, true) });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('ready', () => (this.connection += 1));
    this.subscriber.on('close', () => (this.connection += 1));
    this.subscriber.on('message', (channel: string, message: string) => {
      for (const listener of [...(this.listeners.get(channel) ?? [])]) listener(message, channel);
    });
  }

  /** Listens to `channel`; resolves once Redis confirmed (or after SUBSCRIBE_TIMEOUT_MS). Returns the unsubscribe. */
  async subscribe(channel: string, listener: MessageListener): Promise<() => void> {
    let set = this.listeners.get(channel);
    if (!set) {
      this.listeners.set(channel, (set = new Set()));
      // A channel left moments ago is still subscribed at Redis: nothing to ask.
      if (!this.leaving.delete(channel)) {
        const pending = this.subscriber.subscribe(channel).catch(() => undefined);
        this.subscribing.set(channel, pending);
        void pending.finally(() => this.subscribing.delete(channel));
      }
    }
    set.add(listener);
    const pending = this.subscribing.get(channel);
    if (pending) await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, SUBSCRIBE_TIMEOUT_MS).unref())]);
    const listeners = set;
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.listeners.get(channel) === listeners) {
        this.listeners.delete(channel);
        this.leave(channel);
      }
    };
  }

  /**
   * The current connection of the subscriber while it is up, else undefined. What was learnt
   * under one connection is kept only while this stays the same: a message published while the
   * subscriber was away never arrives.
   */
  listeningConnection(): number | undefined {
    return this.subscriber.status === 'ready' ? this.connection : undefined;
  }

  private leave(channel: string): void {
    this.leaving.add(channel);
    this.leaveTimer ??= setTimeout(() => {
      this.leaveTimer = undefined;
      const channels = [...this.leaving];
      this.leaving.clear();
      if (channels.length > 0) this.subscriber.unsubscribe(...channels).catch(() => undefined);
    }, UNSUBSCRIBE_BATCH_MS).unref();
  }

  onApplicationShutdown(): void {
    clearTimeout(this.leaveTimer);
    this.subscriber.disconnect();
  }
}
