import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { parseJSONRPCMessage, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Redis } from 'ioredis';
import { APP_CONFIG, redisConnectionOptions, type AppConfig, type McpServerRecord } from '#workflow/nest';
import { ToolListChanges } from '../mcp-servers/tool-list-changes.js';
import { RedisConnection } from '../redis/redis.module.js';
import type { McpCaller } from './mcp-callers.js';
import { PublishedServerFactory } from './published-server-factory.js';
import { SseSessionTransport } from './sse-session-transport.js';
import { openEventStream } from './sse-stream.js';

/** The owner record of a session expires unless its process renews it, so a dead process's sessions vanish. */
const OWNER_TTL_SECONDS = 60;
const OWNER_RENEW_MS = 20_000;

interface SessionOwner {
  serverId: string;
  keyId: string;
}

/**
 * The legacy 2024-11-05 HTTP+SSE transport (`GET /mcp/<id>/sse` + `POST /mcp/<id>/messages`).
 * It is stateful by nature: the stream lives on one API process, the client's POSTs may reach
 * another behind a load balancer. So the session's owner (server and key) is in Redis, and a POST
 * taken by any process is published on the session's Redis channel; the process holding the
 * stream hands it to its MCP server instance. Nothing depends on which process a POST lands on,
 * and a session is only ever reached by its own id and key: sessions cannot cross.
 */
@Injectable()
export class LegacySseSessions implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(LegacySseSessions.name);
  private readonly subscriber: Redis;
  /** The sessions whose stream this process holds, by session id. */
  private readonly local = new Map<string, { serverId: string; transport: SseSessionTransport }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly factory: PublishedServerFactory,
    private readonly changes: ToolListChanges,
  ) {
    this.subscriber = new Redis({ ...redisConnectionOptions(config, true) });
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, text: string) => this.deliver(channel, text));
    // A deleted server's sessions end here (their clients' next POST answers 404 anyway).
    this.changes.onDeleted((serverId) => {
      for (const session of this.local.values()) if (session.serverId === serverId) void session.transport.close();
    });
  }

  private ownerKey(sessionId: string): string {
    return `${this.config.queuePrefix}:mcp-sse:${sessionId}`;
  }

  private channel(sessionId: string): string {
    return `${this.config.queuePrefix}:mcp-sse-messages:${sessionId}`;
  }

  async open(server: McpServerRecord, caller: McpCaller, res: ExpressResponse): Promise<void> {
    const sessionId = randomUUID();
    const owner = JSON.stringify({ serverId: server.id, keyId: caller.keyId } satisfies SessionOwner);
    await this.redis.client.set(this.ownerKey(sessionId), owner, 'EX', OWNER_TTL_SECONDS);
    await this.subscriber.subscribe(this.channel(sessionId));

    const stream = openEventStream(res);
    // Relative to the stream's URL, so it holds behind a proxy that adds a path prefix.
    const transport = new SseSessionTransport(stream, sessionId, `messages?sessionId=${sessionId}`);
    this.local.set(sessionId, { serverId: server.id, transport });
    const mcp = this.factory.build({ server, caller, serving: { kind: 'sse-session', closed: () => transport.isClosed } });
    const renew = setInterval(
      () => void this.redis.client.expire(this.ownerKey(sessionId), OWNER_TTL_SECONDS).catch(() => undefined),
      OWNER_RENEW_MS,
    );
    const stopListening = await this.changes.subscribe(server.id, () => void mcp.sendToolListChanged().catch(() => undefined));
    stream.onClose(() => {
      clearInterval(renew);
      stopListening();
      this.local.delete(sessionId);
      void this.subscriber.unsubscribe(this.channel(sessionId)).catch(() => undefined);
      void this.redis.client.del(this.ownerKey(sessionId)).catch(() => undefined);
      void mcp.close().catch(() => undefined);
    });
    await mcp.connect(transport);
    this.logger.debug({ mcpServerId: server.id, sessionId }, 'legacy SSE session opened');
  }

  /** A client message for a session: 202 once the owning process has it, 404 for an unknown (or another key's) session. */
  async post(server: McpServerRecord, caller: McpCaller, req: ExpressRequest, res: ExpressResponse): Promise<void> {
    const sessionId = typeof req.query.sessionId === 'string' ? req.query.sessionId : '';
    const owner = sessionId ? await this.redis.client.get(this.ownerKey(sessionId)) : null;
    const known = owner !== null && this.sameOwner(owner, { serverId: server.id, keyId: caller.keyId });
    if (!known) {
      res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(req.body);
    } catch {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32700, message: 'The body is not a JSON-RPC message' }, id: null });
      return;
    }
    const receivers = await this.redis.client.publish(this.channel(sessionId), JSON.stringify(message));
    if (receivers === 0) {
      res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found (its stream is closed)' }, id: null });
      return;
    }
    res.status(202).type('text/plain').send('Accepted');
  }

  /** Before the HTTP server closes (it waits for open connections): end the streams this process holds. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.local.values()].map((session) => session.transport.close()));
  }

  onApplicationShutdown(): void {
    this.subscriber.disconnect();
  }

  private sameOwner(stored: string, expected: SessionOwner): boolean {
    try {
      const owner = JSON.parse(stored) as SessionOwner;
      return owner.serverId === expected.serverId && owner.keyId === expected.keyId;
    } catch {
      return false;
    }
  }

  private deliver(channel: string, text: string): void {
    const sessionId = channel.slice(channel.lastIndexOf(':') + 1);
    const transport = this.local.get(sessionId)?.transport;
    if (!transport) return;
    try {
      transport.receive(JSON.parse(text) as JSONRPCMessage);
    } catch (error) {
      this.logger.warn({ err: error, sessionId }, 'undeliverable legacy SSE message');
    }
  }
}
