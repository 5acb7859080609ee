import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';

/** Seconds to wait before the next attempt, or undefined when the request may go on. */
export type RetryAfter = number | undefined;

/**
 * The auth guard's limits, counted in Redis so every API process shares them
 * (rate-limiter-flexible: one atomic Lua increment per check). If Redis cannot answer, an
 * in-process limiter with the same numbers stands in (its `insuranceLimiter`), so an outage
 * neither opens the gate nor closes the API.
 */
@Injectable()
export class RateLimits {
  private readonly perKey: RateLimiterAbstract | undefined;
  private readonly failures: RateLimiterAbstract;
  private readonly failureLimit: number;

  constructor(redis: RedisConnection, @Inject(APP_CONFIG) config: AppConfig) {
    const prefix = `${config.queuePrefix}:ratelimit`;
    const { rateLimitPerMinute, failuresPerMinute, failureBlockSeconds } = config.auth;
    const limiter = (keyPrefix: string, points: number, blockDuration = 0) =>
      new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix,
        points,
        duration: 60,
        blockDuration,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: 60, blockDuration }),
      });
    this.perKey = rateLimitPerMinute > 0 ? limiter(`${prefix}:key`, rateLimitPerMinute) : undefined;
    this.failures = limiter(`${prefix}:auth-failures`, failuresPerMinute, failureBlockSeconds);
    this.failureLimit = failuresPerMinute;
  }

  /** Counts one request of a key. */
  async consumeKey(keyId: string): Promise<RetryAfter> {
    return this.perKey ? consume(this.perKey, keyId) : undefined;
  }

  /** Whether this address is blocked for too many failed authentications (counts nothing). */
  async failureBlock(ip: string): Promise<RetryAfter> {
    const state = await this.failures.get(ip);
    return state && state.consumedPoints > this.failureLimit ? seconds(state.msBeforeNext) : undefined;
  }

  /** Counts one failed authentication of this address; the one over the limit starts its block. */
  async recordFailure(ip: string): Promise<RetryAfter> {
    return consume(this.failures, ip);
  }
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<RetryAfter> {
  try {
    await limiter.consume(key);
    return undefined;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return seconds(rejection.msBeforeNext);
    throw rejection;
  }
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));
