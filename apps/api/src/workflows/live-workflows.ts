import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, WorkflowRepository, type AppConfig, type WorkflowRecord } from '#workflow/nest';
import { BroadcastCache } from '../redis/broadcast-cache.js';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';

/**
 * The current record of a live workflow (its latest version number), kept in process for what
 * starts runs (REST, webhook deliveries, published MCP tools): a PUT or DELETE broadcasts the
 * change on Redis, so every API process runs the new version (or answers 404) from the next
 * request on; a lost broadcast is bounded by CACHE_MAX_AGE_MS.
 * Beside it, what features derive from a workflow's stored versions (`derived`), dropped with it.
 */
@Injectable()
export class LiveWorkflows implements OnModuleInit, OnModuleDestroy {
  private readonly known: BroadcastCache<WorkflowRecord>;
  private readonly derivations: BroadcastCache<unknown>;

  constructor(
    private readonly workflows: WorkflowRepository,
    @Inject(APP_CONFIG) config: AppConfig,
    channels: RedisChannels,
    redis: RedisConnection,
  ) {
    const options = { channel: `${config.queuePrefix}:workflow-changes`, maxAgeMs: config.cacheMaxAgeMs };
    this.known = new BroadcastCache(channels, redis, options);
    this.derivations = new BroadcastCache(channels, redis, options);
  }

  async onModuleInit(): Promise<void> {
    await Promise.all([this.known.start(), this.derivations.start()]);
  }

  onModuleDestroy(): void {
    this.known.stop();
    this.derivations.stop();
  }

  find(id: string): Promise<WorkflowRecord | undefined> {
    return this.known.get(
      id,
      () => this.workflows.findLive(id),
      (workflow) => workflow.id,
    );
  }

  /** A value computed from the workflow's stored versions (`kind` names it), kept until the workflow changes. */
  async derived<T>(id: string, kind: string, compute: () => Promise<T>): Promise<T> {
    return (await this.derivations.get(`${kind}:${id}`, compute, () => id)) as T;
  }

  /** After a new version or a deletion is in the store. */
  changed(id: string): Promise<void> {
    this.derivations.drop(id);
    return this.known.changed(id);
  }
}
