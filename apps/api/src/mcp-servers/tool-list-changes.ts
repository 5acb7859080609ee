import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';

type Listener = () => void;
type DeletionListener = (serverId: string) => void;

/**
 * "The tools of MCP server X changed" across every API process: one Redis channel, the message is
 * the server id. A published workflow's new version, a PATCH or a DELETE of the server publish it;
 * each process hands it to its own open streams (whatever protocol generation they speak).
 * "Server X was deleted" has a channel of its own, after the change: each process then closes the
 * streams it holds for X and drops what it keeps for it (the SDK handler).
 */
@Injectable()
export class ToolListChanges implements OnModuleInit {
  private readonly logger = new Logger(ToolListChanges.name);
  private readonly channel: string;
  private readonly deletedChannel: string;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly deletionListeners = new Set<DeletionListener>();
  private subscribed: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly channels: RedisChannels,
  ) {
    this.channel = `${config.queuePrefix}:mcp-server-changes`;
    this.deletedChannel = `${config.queuePrefix}:mcp-server-deletions`;
  }

  onModuleInit(): void {
    // On the process's one subscriber connection, so a deletion arrives after the change published before it.
    this.subscribed = Promise.all([
      this.channels.subscribe(this.channel, (serverId) => {
        for (const listener of [...(this.listeners.get(serverId) ?? [])]) listener();
      }),
      this.channels.subscribe(this.deletedChannel, (serverId) => {
        for (const listener of [...this.deletionListeners]) listener(serverId);
      }),
    ]).catch((error: unknown) => this.logger.warn({ err: error }, 'not listening for MCP tool changes'));
  }

  /** Best effort: a lost message means a client re-lists later than it could have. */
  async publish(serverIds: readonly string[]): Promise<void> {
    for (const serverId of serverIds) {
      await this.redis.client.publish(this.channel, serverId).catch((error: unknown) => {
        this.logger.warn({ err: error, serverId }, 'tools/list_changed not published (Redis unreachable)');
      });
    }
  }

  /** Tells every process that the server is gone (after its last change). */
  async publishDeleted(serverId: string): Promise<void> {
    await this.redis.client.publish(this.deletedChannel, serverId).catch((error: unknown) => {
      this.logger.warn({ err: error, serverId }, 'MCP server deletion not published (Redis unreachable): its open streams stay open');
    });
  }

  /** Calls `listener` with the id of each deleted server. Returns the unsubscribe. */
  onDeleted(listener: DeletionListener): () => void {
    this.deletionListeners.add(listener);
    return () => this.deletionListeners.delete(listener);
  }

  /** Calls `listener` whenever server `serverId` changes; resolves once Redis listens. Returns the unsubscribe. */
  async subscribe(serverId: string, listener: Listener): Promise<() => void> {
    await this.subscribed;
    let set = this.listeners.get(serverId);
    if (!set) this.listeners.set(serverId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(serverId) === set) this.listeners.delete(serverId);
    };
  }
}
