import { Injectable } from '@nestjs/common';
import { ProtocolError, ProtocolErrorCode, Server, type JSONRPCMessage, type ServerContext } from '@modelcontextprotocol/server';
import { McpServerRepository, type McpServerRecord } from '#workflow/nest';
import { AuthorizationRounds, type RoundBinding } from './authorization-rounds.js';
import { CallPublishedTool } from './call-published-tool.js';
import { CallRegistry } from './call-registry.js';
import { isClientTimeout } from './cancel-reason.js';
import { ClientElicitations } from './client-elicitations.js';
import type { McpCaller } from './mcp-callers.js';
import type { AuthorizationPrompt } from './pass-on-authorization.js';
import { PublishedCatalog } from './published-catalog.js';

/** Tools per `tools/list` page; the cursor is the offset of the next page. */
export const TOOLS_PAGE_SIZE = 100;

/** The first revision with URL-mode elicitation and its -32042 error. */
const URL_ELICITATION_SINCE = '2025-11-25';

/** What one request (or one legacy SSE session) is served for. */
export interface McpRequestScope {
  server: McpServerRecord;
  caller: McpCaller;
  /** How this client is served; it decides what an abort of a call means. */
  serving:
    | { kind: 'modern' }
    | { kind: 'stateless-legacy'; sessionId?: string; protocolVersion?: string }
    | { kind: 'sse-session'; closed(): boolean };
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = Number(Buffer.from(cursor, 'base64url').toString());
  if (!Number.isInteger(offset) || offset < 0) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid cursor');
  return offset;
}

/**
 * Builds the MCP server instance of one request (or one legacy SSE session): the low-level SDK
 * `Server`, because the tools are data (workflows), not code, and their schemas are JSON Schema.
 */
@Injectable()
export class PublishedServerFactory {
  constructor(
    private readonly catalog: PublishedCatalog,
    private readonly calls: CallPublishedTool,
    private readonly registry: CallRegistry,
    private readonly servers: McpServerRepository,
    private readonly elicitations: ClientElicitations,
    private readonly rounds: AuthorizationRounds,
  ) {}

  /**
   * The server's record as a request should see it: a per-request instance has the one its request
   * just read; a legacy SSE session lives long, so it reads the record again (a PATCH shows at once,
   * a deleted server answers an error until the session is ended).
   */
  private async current(scope: McpRequestScope): Promise<McpServerRecord> {
    if (scope.serving.kind !== 'sse-session') return scope.server;
    const server = await this.servers.findById(scope.server.id);
    if (!server) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `MCP server ${scope.server.id} was deleted`);
    return server;
  }

  build(scope: McpRequestScope): Server {
    const { server, caller, serving } = scope;
    const keyId = caller.keyId;
    const mcp = new Server(
      { name: server.name, version: '1.0.0' },
      { capabilities: { tools: { listChanged: true } }, ...(server.description && { instructions: server.description }) },
    );
    mcp.setRequestHandler('tools/list', async (request) => {
      const offset = parseCursor(request.params?.cursor);
      const tools = await this.catalog.tools(await this.current(scope), caller.workflows);
      const next = offset + TOOLS_PAGE_SIZE;
      return {
        tools: tools.slice(offset, next).map((published) => published.tool),
        ...(next < tools.length && { nextCursor: Buffer.from(String(next)).toString('base64url') }),
      };
    });
    mcp.setRequestHandler('tools/call', async (request, ctx) => {
      const sessionId = serving.kind === 'stateless-legacy' ? serving.sessionId : undefined;
      const requestId = ctx.mcpReq.id;
      const binding = { keyId, serverId: server.id, tool: request.params.name };
      const continuation = serving.kind === 'modern' ? this.rounds.continuation(ctx, binding) : undefined;
      return this.calls.execute({
        server: await this.current(scope),
        caller,
        name: request.params.name,
        arguments: request.params.arguments,
        progressToken: ctx.mcpReq._meta?.progressToken,
        signal: ctx.mcpReq.signal,
        notify: (notification) => ctx.mcpReq.notify(notification),
        // Modern: closing the request's stream is the cancellation. Legacy SSE: the session's own
        // notifications/cancelled aborts (unless it is the client's timeout), the stream closing does
        // too (then the run goes on). Stateless 2025: an abort is only a lost connection; cancels
        // come through CallRegistry.
        abortMeansCancel: (reason) =>
          serving.kind === 'modern' || (serving.kind === 'sse-session' && !serving.closed() && !isClientTimeout(reason)),
        ...(sessionId && {
          onRunStarted: (runId: string) => this.registry.record(keyId, sessionId, requestId, runId),
          onRunEnded: () => this.registry.forget(keyId, sessionId, requestId),
        }),
        ...(continuation && { continuation }),
        authorizationPrompt: () => this.authorizationPrompt(scope, mcp, ctx, binding),
      });
    });
    return mcp;
  }

  /**
   * A 2025 Streamable HTTP client that declared URL elicitation gets `elicitation/create` on the
   * call's own answer stream. Sent through the transport, not the SDK's `elicitInput`: a stateless
   * instance never saw the client's `initialize`, so the SDK's capability checks would refuse; the
   * capability was recorded at `initialize` (ClientElicitations), and the answer comes back from there.
   */
  private async authorizationPrompt(
    scope: McpRequestScope,
    mcp: Server,
    ctx: ServerContext,
    binding: RoundBinding,
  ): Promise<AuthorizationPrompt> {
    const { serving, caller } = scope;
    const requestId = ctx.mcpReq.id;
    if (serving.kind === 'modern') {
      if (!this.rounds.clientAcceptsUrl(ctx)) return { kind: 'text' };
      return { kind: 'input-required', requestState: (runId, expiresAt) => this.rounds.mint(binding, runId, expiresAt) };
    }
    if (serving.kind !== 'stateless-legacy') return { kind: 'text' };
    const { sessionId } = serving;
    if (sessionId && (await this.elicitations.acceptsUrl(caller.keyId, sessionId))) {
      const send = async (message: JSONRPCMessage) => {
        if (!mcp.transport) throw new Error('the call has no transport any more');
        await mcp.transport.send(message, { relatedRequestId: requestId });
      };
      return {
        kind: 'elicitation',
        ask: (params, signal, timeoutMs) => this.elicitations.ask(caller.keyId, sessionId, params, send, signal, timeoutMs),
        complete: (elicitationId) => send({ jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } }),
      };
    }
    return (serving.protocolVersion ?? '') >= URL_ELICITATION_SINCE ? { kind: 'elicitation-error' } : { kind: 'text' };
  }
}
