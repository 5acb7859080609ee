import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, redisConnectionOptions, type AppConfig } from '#workflow/nest';
import { RedisChannels } from './redis-channels.js';

/** The API's Redis connection (health checks, producers). Fails fast: the API answers, never hangs. */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  readonly client: Redis;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = new Redis({ ...redisConnectionOptions(config), enableOfflineQueue: false, lazyConnect: false });
    // Connection errors surface through health checks and requests; ioredis keeps reconnecting.
    this.client.on('error', () => undefined);
  }

  async onApplicationShutdown(): Promise<void> {
    this.client.disconnect();
  }
}

@Global()
@Module({ providers: [RedisConnection, RedisChannels], exports: [RedisConnection, RedisChannels] })
export class RedisModule {}
