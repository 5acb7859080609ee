import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';

/**
 * Deliveries per minute and hook (HOOK_RATE_LIMIT_PER_MINUTE), counted in Redis across API
 * processes like the API keys' limits, with an in-process stand-in while Redis is away.
 */
@Injectable()
export class HookRateLimit {
  private readonly limiter?: RateLimiterRedis;

  constructor(redis: RedisConnection, @Inject(APP_CONFIG) config: AppConfig) {
    const points = config.triggers.hookRatePerMinute;
    const keyPrefix = `${config.queuePrefix}:ratelimit:hook`;
    if (points > 0) {
      this.limiter = new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix,
        points,
        duration: 60,
        insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: 60 }),
      });
    }
  }

  /** Seconds until the hook may take another delivery, or undefined when this one may go on. */
  async consume(webhookId: string): Promise<number | undefined> {
    try {
      await this.limiter?.consume(webhookId);
      return undefined;
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw rejection;
    }
  }
}
