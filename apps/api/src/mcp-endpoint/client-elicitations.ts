import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ElicitRequestURLParams, JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/server';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RedisChannels } from '../redis/redis-channels.js';
import { RedisConnection } from '../redis/redis.module.js';

/** How long what a client declared at `initialize` is kept after its last use (sliding). */
const CLIENT_TTL_SECONDS = 24 * 3600;

/** The client's answer to a URL-mode `elicitation/create`, or `unanswered` (timed out, call gone, error answer). */
export type ElicitationOutcome = 'accept' | 'decline' | 'cancel' | 'unanswered';

/** A JSON-RPC response (no `method`), as a client POSTs it back for a request the server sent. */
export function isJsonRpcResponse(body: unknown): body is { id: string | number; result?: unknown; error?: unknown } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Record<string, unknown>;
  return (
    message.method === undefined &&
    (typeof message.id === 'string' || typeof message.id === 'number') &&
    ('result' in message || 'error' in message)
  );
}

function actionOf(message: { result?: unknown; error?: unknown }): ElicitationOutcome {
  const action = (message.result as { action?: unknown } | undefined)?.action;
  return action === 'accept' || action === 'decline' || action === 'cancel' ? action : 'unanswered';
}

/**
 * URL-mode elicitation toward 2025 Streamable HTTP clients, which are served statelessly (each
 * POST by a fresh SDK server instance, on any API process): the capability a client declared at
 * `initialize` is kept in Redis under (key, session id), and the client's answer to an
 * `elicitation/create` — its own POST, maybe taken by another process — is published on a Redis
 * channel of (key, session id) to the call that asked. The key id is part of both names: a
 * guessed session id of another key finds nothing.
 */
@Injectable()
export class ClientElicitations {
  private readonly logger = new Logger(ClientElicitations.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly channels: RedisChannels,
  ) {}

  private clientKey(keyId: string | null, sessionId: string): string {
    return `${this.config.queuePrefix}:mcp-client:${keyId ?? '-'}:${sessionId}`;
  }

  private answersChannel(keyId: string | null, sessionId: string): string {
    return `${this.config.queuePrefix}:mcp-answers:${keyId ?? '-'}:${sessionId}`;
  }

  /** At `initialize`: whether the client declared `capabilities.elicitation.url`. */
  async recordInitialize(keyId: string | null, sessionId: string, capabilities: unknown): Promise<void> {
    const elicitation = (capabilities as { elicitation?: { url?: unknown } } | undefined)?.elicitation;
    if (typeof elicitation?.url !== 'object' || elicitation.url === null) return;
    await this.redis.client
      .set(this.clientKey(keyId, sessionId), JSON.stringify({ urlElicitation: true }), 'EX', CLIENT_TTL_SECONDS)
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'MCP client capabilities not recorded (Redis unreachable): its calls get -32042 instead'),
      );
  }

  async acceptsUrl(keyId: string | null, sessionId: string): Promise<boolean> {
    const recorded = await this.redis.client.getex(this.clientKey(keyId, sessionId), 'EX', CLIENT_TTL_SECONDS).catch(() => null);
    return recorded !== null;
  }

  /** A client's answer to a request the server sent: handed to the call that waits for it, wherever it is. */
  async deliver(keyId: string | null, sessionId: string, message: unknown): Promise<void> {
    await this.redis.client.publish(this.answersChannel(keyId, sessionId), JSON.stringify(message)).catch((error: unknown) => {
      this.logger.warn({ err: error }, 'MCP client answer not passed on (Redis unreachable): its call goes on waiting for the run');
    });
  }

  /**
   * Sends `elicitation/create` (URL mode) through `send` (the call's own answer stream) and waits
   * for the client's answer until `timeoutMs` runs out or `signal` aborts.
   */
  async ask(
    keyId: string | null,
    sessionId: string,
    params: ElicitRequestURLParams,
    send: (message: JSONRPCMessage) => Promise<void>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<ElicitationOutcome> {
    const request: JSONRPCRequest = { jsonrpc: '2.0', id: `mcpflow-elicitation-${randomUUID()}`, method: 'elicitation/create', params };
    let settle: (outcome: ElicitationOutcome) => void = () => undefined;
    const answered = new Promise<ElicitationOutcome>((resolve) => (settle = resolve));
    const unsubscribe = await this.channels.subscribe(this.answersChannel(keyId, sessionId), (text) => {
      const message = JSON.parse(text) as { id?: unknown; result?: unknown; error?: unknown };
      if (message.id === request.id) settle(actionOf(message));
    });
    const timer = setTimeout(() => settle('unanswered'), timeoutMs);
    const onAbort = () => settle('unanswered');
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await send(request);
      return await answered;
    } catch (error) {
      this.logger.warn({ err: error }, 'elicitation/create not sent to the MCP client');
      return 'unanswered';
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      unsubscribe();
    }
  }
}
