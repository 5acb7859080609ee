import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, WorkflowRepository, type AppConfig, type WorkflowRecord } from '#workflow/nest';
import { BroadcastCache } from '../redis/broadcast-cache.js';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';

/**
 * The current record of a live workflow (its latest version number), kept in process for what
 * starts runs: a PUT or DELETE broadcasts the change on Redis, so every API process runs the new
 * version (or answers 404) from the next request on; a lost broadcast is bounded by CACHE_MAX_AGE_MS.
 */
@Injectable()
export class LiveWorkflows implements OnModuleInit, OnModuleDestroy {
  private readonly known: BroadcastCache<WorkflowRecord>;

  constructor(
    private readonly workflows: WorkflowRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    channels: RedisChannels,
    redis: RedisConnection,
  ) {
    this.known = new BroadcastCache(channels, redis, { channel: `${config.queuePrefix}:workflow-changes`, maxAgeMs: config.cacheMaxAgeMs });
  }

  onModuleInit(): Promise<void> {
    return this.known.start();
  }

  onModuleDestroy(): void {
    this.known.stop();
  }

  find(id: string): Promise<WorkflowRecord | undefined> {
    return this.known.get(
      id,
      () => this.workflows.findLive(id),
      (workflow) => workflow.id,
    );
  }

  /** After a new version or a deletion is in the store. */
  changed(id: string): Promise<void> {
    return this.known.changed(id);
  }
}
