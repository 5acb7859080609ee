import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';

/**
 * 2025 Streamable HTTP clients are served statelessly, so `notifications/cancelled` arrives as its
 * own POST, maybe on another API process than the call it cancels. Each call of a client that
 * holds a session id (handed out at `initialize`, see streamable-http.ts) is recorded here as
 * (key, session, request id) → run id, so any process can find the run to cancel. The key id is
 * part of the entry: a guessed session id of another key finds nothing.
 */
@Injectable()
export class CallRegistry {
  private readonly logger = new Logger(CallRegistry.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisConnection,
  ) {}

  private keyOf(keyId: string | null, sessionId: string, requestId: string | number): string {
    return `${this.config.queuePrefix}:mcp-call:${keyId ?? '-'}:${sessionId}:${JSON.stringify(requestId)}`;
  }

  async record(keyId: string | null, sessionId: string, requestId: string | number, runId: string): Promise<void> {
    const ttlSeconds = Math.ceil(this.config.limits.runDeadlineMs / 1000) + 120;
    await this.redis.client.set(this.keyOf(keyId, sessionId, requestId), runId, 'EX', ttlSeconds).catch((error: unknown) => {
      this.logger.warn({ err: error, runId }, 'MCP call not recorded (Redis unreachable): a cancel from another process will not find it');
    });
  }

  async forget(keyId: string | null, sessionId: string, requestId: string | number): Promise<void> {
    await this.redis.client.del(this.keyOf(keyId, sessionId, requestId)).catch(() => undefined);
  }

  async runOf(keyId: string | null, sessionId: string, requestId: string | number): Promise<string | undefined> {
    return (await this.redis.client.get(this.keyOf(keyId, sessionId, requestId)).catch(() => null)) ?? undefined;
  }
}
