import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisConnection } from '../redis/redis.module.js';

/** Stored under a call's entry when its cancel arrives before its run is recorded. */
const CANCEL_PENDING = 'cancel-pending';
/** How long such an early cancel waits for its call (a cancel of something that is no call simply expires). */
const PENDING_CANCEL_SECONDS = 120;

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

  /**
   * Records the call's run. True when the client's cancel came first (it can: the cancel may reach
   * another process while this one is still starting the run): the caller then cancels the run.
   */
  async record(keyId: string | null, sessionId: string, requestId: string | number, runId: string): Promise<boolean> {
    const key = this.keyOf(keyId, sessionId, requestId);
    const ttlSeconds = Math.ceil(this.config.limits.runDeadlineMs / 1000) + 120;
    try {
      if ((await this.redis.client.set(key, runId, 'EX', ttlSeconds, 'NX')) === 'OK') return false;
      const canceledEarly = (await this.redis.client.get(key)) === CANCEL_PENDING;
      await this.redis.client.set(key, runId, 'EX', ttlSeconds);
      return canceledEarly;
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'MCP call not recorded (Redis unreachable): a cancel from another process will not find it');
      return false;
    }
  }

  /** A client's cancel: the run to cancel, or undefined when there is none yet (then `record` will tell its call). */
  async cancel(keyId: string | null, sessionId: string, requestId: string | number): Promise<string | undefined> {
    const key = this.keyOf(keyId, sessionId, requestId);
    try {
      if ((await this.redis.client.set(key, CANCEL_PENDING, 'EX', PENDING_CANCEL_SECONDS, 'NX')) === 'OK') return undefined;
      const runId = await this.redis.client.get(key);
      return runId && runId !== CANCEL_PENDING ? runId : undefined;
    } catch {
      return undefined;
    }
  }

  async forget(keyId: string | null, sessionId: string, requestId: string | number): Promise<void> {
    await this.redis.client.del(this.keyOf(keyId, sessionId, requestId)).catch(() => undefined);
  }

  async runOf(keyId: string | null, sessionId: string, requestId: string | number): Promise<string | undefined> {
    return (await this.redis.client.get(this.keyOf(keyId, sessionId, requestId)).catch(() => null)) ?? undefined;
  }
}
