import { Logger } from '@nestjs/common';
import type { RedisChannels } from './redis-channels.js';
import type { RedisConnection } from './redis.module.js';

/** Entries kept per cache and process; the oldest goes first. */
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  /** What a change message names to drop it (e.g. a key's id, where the entry is found by its hash). */
  id: string;
  storedAt: number;
  /** The subscriber's connection it was stored under (RedisChannels.listeningConnection). */
  connection: number;
}

export interface BroadcastCacheOptions {
  /** Pub/sub channel of the change messages; a message is the id of what changed. */
  channel: string;
  /** Longest an entry is trusted without a read (0 = no cache): the bound when a change message is lost. */
  maxAgeMs: number;
  /** Called for every id a change message names (this process's own changes included). */
  onChange?: (id: string) => void;
}

/**
 * An in-process copy of store records read on every request (API keys, workflows), kept correct
 * across API processes by a change message on Redis: whoever changes a record drops its entry and
 * publishes the id; every process drops it on receipt. Entries are trusted only while the
 * subscriber stays on the connection they were stored under (a message sent while it was away is
 * lost, so a reconnection empties the cache in effect), and never longer than `maxAgeMs`.
 */
export class BroadcastCache<V> {
  private readonly logger = new Logger(BroadcastCache.name);
  private readonly entries = new Map<string, Entry<V>>();
  private unsubscribe: (() => void) | undefined;
  /** Counts change messages, so that a read that overlapped one is not stored. */
  private changes = 0;

  constructor(
    private readonly channels: RedisChannels,
    private readonly redis: RedisConnection,
    private readonly options: BroadcastCacheOptions,
  ) {}

  /** Starts listening to change messages (entries are stored only once this resolved). */
  async start(): Promise<void> {
    if (this.options.maxAgeMs <= 0) return;
    this.unsubscribe = await this.channels.subscribe(this.options.channel, (id) => this.drop(id));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.entries.clear();
  }

  /** The record under `key`: the copy while it can be trusted, else `load()` (stored when found). */
  async get(key: string, load: () => Promise<V | undefined>, idOf: (value: V) => string): Promise<V | undefined> {
    const connection = this.channels.listeningConnection();
    const entry = this.entries.get(key);
    if (entry && entry.connection === connection && Date.now() - entry.storedAt < this.options.maxAgeMs) return entry.value;
    if (entry) this.entries.delete(key);
    const changesBefore = this.changes;
    const value = await load();
    // Stored only if no change message came during the read (it may predate the change) and none can have been lost.
    const unchanged = this.changes === changesBefore && this.channels.listeningConnection() === connection;
    if (value !== undefined && this.unsubscribe && connection !== undefined && unchanged) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, id: idOf(value), storedAt: Date.now(), connection });
    }
    return value;
  }

  /** After a change is in the store: drops the record here and tells every other process (best effort: see `maxAgeMs`). */
  async changed(id: string): Promise<void> {
    this.drop(id);
    await this.redis.client.publish(this.options.channel, id).catch((error: unknown) => {
      this.logger.warn(
        { err: error, id, channel: this.options.channel },
        'could not broadcast a change: other processes see it within the cache bound',
      );
    });
  }

  /** Drops the entries of `id` in this process only (a cache beside another that broadcasts the same change). */
  drop(id: string): void {
    this.changes += 1;
    for (const [key, entry] of this.entries) if (entry.id === id) this.entries.delete(key);
    this.options.onChange?.(id);
  }
}
