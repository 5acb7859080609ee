import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { redisConnectionOptions } from '../queue/run-queue.js';
import { randomBytes } from 'node:crypto';

const KEY_PREFIX = 'mcpflow:oauth:';
/** A renewal holds the lock at most this long (a token request has its own timeout well below it). */
const LOCK_TTL_MS = 30_000;
/** How long a caller waits for another process's renewal before giving up. */
const LOCK_WAIT_MS = 45_000;
const POLL_MS = 25;
/** Deletes the lock only if it is still ours (it may have expired and been taken by another process). */
const RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

export class OAuthLockTimeoutError extends Error {
  override readonly name = 'OAuthLockTimeoutError';
}

/**
 * What OAuth keeps in Redis: the lock that lets one process at a time renew a grant (a plain
 * `SET NX PX` with an owner token — one Redis, no quorum needed, so no Redlock library), and the
 * pending authorizations (`state` → what the callback needs), single use (`GETDEL`) and short-lived.
 */
@Injectable()
export class OAuthRedis implements OnApplicationShutdown {
  private client?: Redis;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private redis(): Redis {
    if (!this.client) {
      this.client = new Redis({ ...redisConnectionOptions(this.config), lazyConnect: false });
      this.client.on('error', () => undefined);
    }
    return this.client;
  }

  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const key = `${KEY_PREFIX}lock:${name}`;
    const owner = randomBytes(12).toString('base64url');
    const deadline = Date.now() + LOCK_WAIT_MS;
    while ((await this.redis().set(key, owner, 'PX', LOCK_TTL_MS, 'NX')) !== 'OK') {
      if (Date.now() > deadline) throw new OAuthLockTimeoutError(`waited ${LOCK_WAIT_MS} ms for another process renewing the same grant`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    try {
      return await work();
    } finally {
      await this.redis()
        .eval(RELEASE, 1, key, owner)
        .catch(() => undefined);
    }
  }

  async putPending(state: string, value: string, ttlMs: number): Promise<void> {
    await this.redis().set(`${KEY_PREFIX}state:${state}`, value, 'PX', ttlMs);
  }

  /** The pending authorization of `state`, removed in the same step: a second callback finds nothing. */
  async takePending(state: string): Promise<string | undefined> {
    return (await this.redis().getdel(`${KEY_PREFIX}state:${state}`)) ?? undefined;
  }

  async onApplicationShutdown(): Promise<void> {
    this.client?.disconnect();
  }
}
