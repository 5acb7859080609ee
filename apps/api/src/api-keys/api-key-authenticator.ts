import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, ApiKeyRepository, type AppConfig, type StoredApiKey } from '#workflow/nest';
import { BroadcastCache } from '../redis/broadcast-cache.js';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';
import { hashApiKey, looksLikeApiKey, sameHash } from './api-key-token.js';
import { KeyBoundStreams } from './key-bound-streams.js';
import type { Scope } from './scopes.js';

/** Who is calling: what the guard attaches to a request and what other entry points (MCP) get. */
export interface Principal {
  keyId: string;
  name: string;
  scopes: readonly Scope[];
  /** Workflow ids the key is limited to; null = every workflow. */
  workflows: readonly string[] | null;
  /** MCP server ids the key's `mcp` scope reaches; null = every published server. */
  mcpServers: readonly string[] | null;
}

/** `lastUsedAt` is written at most this often per key and process. */
const LAST_USED_EVERY_MS = 60_000;

/**
 * Token → principal, for the HTTP guard and for any other entry point (e.g. the MCP endpoint).
 * Keys found are kept in process (BroadcastCache): a revocation is broadcast on Redis, so a
 * revoked key stops on every API process with its next request, and the streams it holds there
 * end at once; a lost broadcast is bounded by CACHE_MAX_AGE_MS. Expiry is checked on every call.
 */
@Injectable()
export class ApiKeyAuthenticator implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly lastUsedWrites = new Map<string, number>();
  private readonly known: BroadcastCache<StoredApiKey>;

  constructor(
    private readonly keys: ApiKeyRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    channels: RedisChannels,
    redis: RedisConnection,
    streams: KeyBoundStreams,
  ) {
    this.known = new BroadcastCache(channels, redis, {
      channel: `${config.queuePrefix}:api-key-changes`,
      maxAgeMs: config.cacheMaxAgeMs,
      onChange: (keyId) => streams.endAll(keyId),
    });
  }

  onModuleInit(): Promise<void> {
    return this.known.start();
  }

  onModuleDestroy(): void {
    this.known.stop();
  }

  /** After a key changed in the store (revoked): every process drops its copy and ends the key's streams. */
  changed(keyId: string): Promise<void> {
    return this.known.changed(keyId);
  }

  /** The principal of a valid key; undefined for anything else (malformed, unknown, revoked, expired). */
  async authenticate(token: string, now = new Date()): Promise<Principal | undefined> {
    if (!looksLikeApiKey(token)) return undefined;
    const hash = hashApiKey(token);
    const key = await this.known.get(
      hash,
      () => this.keys.findByHash(hash),
      (found) => found.id,
    );
    if (!key || !sameHash(key.hash, hash) || !usable(key, now)) return undefined;
    this.noteUse(key.id, now);
    return { keyId: key.id, name: key.name, scopes: key.scopes as Scope[], workflows: key.workflows, mcpServers: key.mcpServers };
  }

  /** Off the request path: not awaited, throttled per process, a failure is logged and forgotten. */
  private noteUse(keyId: string, now: Date): void {
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (now.getTime() - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWrites.set(keyId, now.getTime());
    this.keys.touch(keyId, now).catch((error: unknown) => this.logger.warn({ err: error, keyId }, 'could not record lastUsedAt'));
  }
}

function usable(key: StoredApiKey, now: Date): boolean {
  return !key.revokedAt && (!key.expiresAt || key.expiresAt.getTime() > now.getTime());
}
