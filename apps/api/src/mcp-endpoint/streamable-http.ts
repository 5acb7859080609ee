import { randomUUID } from 'node:crypto';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { createMcpHandler, type AuthInfo, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { McpServerRecord } from '#workflow/nest';
import { ToolListChanges } from '../mcp-servers/tool-list-changes.js';
import { CancelRun } from '../runs/cancel-run.js';
import { CallRegistry } from './call-registry.js';
import { isClientTimeout } from './cancel-reason.js';
import { ClientElicitations, isJsonRpcResponse } from './client-elicitations.js';
import type { McpCaller } from './mcp-callers.js';
import { PublishedServerFactory } from './published-server-factory.js';
import { ServerToolsBus } from './server-tools-bus.js';
import { openEventStream, type EventStream } from './sse-stream.js';
import { sendWebResponse, toWebRequest, untilClientGone } from './web-exchange.js';

const SESSION_HEADER = 'mcp-session-id';
const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';
const LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as const;

/** The request's server and caller travel to the per-request factory in the SDK's pass-through `authInfo`. */
interface RequestScope {
  server: McpServerRecord;
  caller: McpCaller;
  sessionId?: string;
  protocolVersion?: string;
}

function jsonRpcMessage(body: unknown): { method?: unknown; params?: { requestId?: unknown; reason?: unknown; capabilities?: unknown } } {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {};
}

/**
 * Streamable HTTP at `/mcp/<id>` for every revision: the SDK's `createMcpHandler` serves
 * 2026-07-28 per request and 2025 clients statelessly from the same factory. No process holds a
 * client: a 2025 client gets a session id at `initialize` that is only a correlation id (nothing
 * is stored under it), so its `notifications/cancelled` can find its run from any process
 * (CallRegistry) and its GET stream can carry `tools/list_changed` (Redis), wherever it lands.
 */
@Injectable()
export class StreamableHttpEndpoint implements BeforeApplicationShutdown {
  private readonly logger = new Logger(StreamableHttpEndpoint.name);
  /**
   * One SDK handler per server: its `subscriptions/listen` streams belong to that server's bus. It
   * holds nothing of the server's record (each request brings the record it just read), so a PATCH
   * needs nothing evicted; a DELETE drops it, ending its streams.
   */
  private readonly handlers = new Map<string, McpHttpHandler>();
  /** The 2025 GET streams this process holds, with their server's id. */
  private readonly streams = new Map<EventStream, string>();

  constructor(
    private readonly factory: PublishedServerFactory,
    private readonly changes: ToolListChanges,
    private readonly registry: CallRegistry,
    private readonly canceler: CancelRun,
    private readonly elicitations: ClientElicitations,
  ) {
    this.changes.onDeleted((serverId) => this.forget(serverId));
  }

  async serve(server: McpServerRecord, caller: McpCaller, req: ExpressRequest, res: ExpressResponse): Promise<void> {
    const sessionHeader = req.headers[SESSION_HEADER];
    const sessionId = typeof sessionHeader === 'string' && sessionHeader ? sessionHeader : undefined;
    if (req.method === 'GET') return this.openListChangedStream(server, req, res);
    if (req.method === 'DELETE') {
      // Nothing is held under a session id, so ending one has nothing to release.
      if (sessionId) res.status(204).end();
      else
        res
          .status(405)
          .json({ jsonrpc: '2.0', error: { code: -32000, message: 'DELETE ends a session: send its Mcp-Session-Id' }, id: null });
      return;
    }
    // A client's answer to our elicitation/create goes to the call that asked, on whichever process it waits.
    if (sessionId && isJsonRpcResponse(req.body)) {
      await this.elicitations.deliver(caller.keyId, sessionId, req.body);
      res.status(202).end();
      return;
    }
    const message = jsonRpcMessage(req.body);
    if (message.method === 'notifications/cancelled' && sessionId) await this.cancelCall(caller, sessionId, message.params);

    const signal = untilClientGone(res);
    const versionHeader = req.headers[PROTOCOL_VERSION_HEADER];
    const protocolVersion = typeof versionHeader === 'string' ? versionHeader : undefined;
    const scope: RequestScope = { server, caller, sessionId, protocolVersion };
    const authInfo: AuthInfo = { token: '', clientId: caller.keyId, scopes: [], extra: { scope } };
    const response = await this.handlerOf(server.id).fetch(toWebRequest(req, signal, [SESSION_HEADER]), {
      authInfo,
      ...(req.body !== undefined && { parsedBody: req.body }),
    });
    const newSessionId = message.method === 'initialize' && response.ok ? randomUUID() : undefined;
    if (newSessionId) await this.elicitations.recordInitialize(caller.keyId, newSessionId, message.params?.capabilities);
    await sendWebResponse(res, response, signal, newSessionId ? { [SESSION_HEADER]: newSessionId } : {});
  }

  /** Before the HTTP server closes (it waits for open connections): end every stream this process holds. */
  async beforeApplicationShutdown(): Promise<void> {
    for (const stream of this.streams.keys()) stream.close();
    await Promise.all([...this.handlers.values()].map((handler) => handler.close().catch(() => undefined)));
  }

  /** A deleted server (on any process): its handler and the streams held here for it end. */
  private forget(serverId: string): void {
    const handler = this.handlers.get(serverId);
    this.handlers.delete(serverId);
    void handler?.close().catch(() => undefined);
    for (const [stream, streamServerId] of this.streams) if (streamServerId === serverId) stream.close();
  }

  private handlerOf(serverId: string): McpHttpHandler {
    let handler = this.handlers.get(serverId);
    if (!handler) {
      handler = createMcpHandler(
        ({ era, authInfo }) => {
          const { server, caller, sessionId, protocolVersion } = authInfo?.extra?.scope as RequestScope;
          const serving =
            era === 'modern' ? ({ kind: 'modern' } as const) : ({ kind: 'stateless-legacy', sessionId, protocolVersion } as const);
          return this.factory.build({ server, caller, serving });
        },
        {
          legacy: 'stateless',
          bus: new ServerToolsBus(serverId, this.changes),
          onerror: (error) => this.logger.debug({ err: error, mcpServerId: serverId }, 'MCP request refused or failed'),
        },
      );
      this.handlers.set(serverId, handler);
    }
    return handler;
  }

  /** A 2025 client's cancel, routed to the run its call started (on whichever process that call waits). */
  private async cancelCall(caller: McpCaller, sessionId: string, params: { requestId?: unknown; reason?: unknown } = {}): Promise<void> {
    const { requestId, reason } = params;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    if (isClientTimeout(reason)) {
      const runId = await this.registry.runOf(caller.keyId, sessionId, requestId);
      if (runId) this.logger.warn({ runId, keyId: caller.keyId }, 'MCP client timed out waiting for a call: the run goes on');
      return;
    }
    // No run yet: the registry keeps the cancel, and the call cancels its run as soon as it records it.
    const runId = await this.registry.cancel(caller.keyId, sessionId, requestId);
    if (!runId) return;
    this.logger.log({ runId, keyId: caller.keyId }, 'MCP client canceled a call: canceling its run');
    this.canceler
      .execute(runId)
      .catch((error: unknown) => this.logger.warn({ err: error, runId }, 'could not cancel the run of a canceled MCP call'));
  }

  /** The 2025 standalone GET stream: server-initiated messages, here only `tools/list_changed`. */
  private async openListChangedStream(server: McpServerRecord, req: ExpressRequest, res: ExpressResponse): Promise<void> {
    if (!String(req.headers.accept ?? '').includes('text/event-stream')) {
      res
        .status(406)
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Not Acceptable: the client must accept text/event-stream' }, id: null });
      return;
    }
    const stream = openEventStream(res);
    this.streams.set(stream, server.id);
    const unsubscribe = await this.changes.subscribe(server.id, () => stream.send('message', JSON.stringify(LIST_CHANGED)));
    stream.onClose(() => {
      unsubscribe();
      this.streams.delete(stream);
    });
  }
}
