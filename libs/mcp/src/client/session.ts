/**
 * One MCP session: a fresh SDK transport + Client, connected within a deadline. A failed connect
 * closes both (a failed SSE start would otherwise keep reconnecting forever), and close() ends a
 * Streamable HTTP session with DELETE first — the SDK's close() alone leaves it on the server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ClientRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { McpError, McpErrorCode } from '../errors.js';
import { sdkSchemaValidator } from '../schema/sdk-validator.js';
import type { ConnectOptions, McpTarget, ResolvedTransport, ServerInfo } from '../types.js';
import { abortable, withTimeout } from './async-utils.js';
import { toMcpError } from './classify.js';
import { elicitationHandler } from './elicitation-scope.js';
import { createTransport, httpSessionIdOf } from './transports.js';

const TERMINATE_TIMEOUT_MS = 3_000;
const STDERR_TAIL_CHARS = 2_000;
const DEFAULT_CLIENT_INFO = { name: 'mcpflow', version: '0.1.0' };

export interface SessionEvents {
  /** The transport closed on its own (child exited, stream ended) after the handshake. */
  onClose(): void;
  /** The transport reported an error after the handshake. */
  onError(error: Error): void;
}

/**
 * What a connection needs from an SDK client, whichever SDK generation speaks the session:
 * v1 for the 2024-11-05…2025-11-25 revisions, v2 for the stateless 2026-07-28 one.
 */
export interface WireClient {
  request<T extends StandardSchemaV1>(
    request: { method: string; params?: Record<string, unknown> },
    schema: T,
    options?: WireRequestOptions,
  ): Promise<StandardSchemaV1.InferOutput<T>>;
  /** Checks that the session still exists (a stateless server has none to lose: it always resolves). */
  ping(options: { timeout: number }): Promise<unknown>;
}

export interface WireRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeout?: number;
  onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

export interface Session {
  readonly client: WireClient;
  readonly kind: ResolvedTransport;
  readonly serverInfo: ServerInfo;
  /** A 2026-07-28 server: no session on the server, nothing to lose, probe or DELETE. */
  readonly stateless?: boolean;
  /** The Streamable HTTP session id (`Mcp-Session-Id`), when the server assigned one. */
  readonly sessionId?: string;
  /** Set when the server no longer knows this session; it is replaced before the next request. */
  lost: boolean;
  /** This session's requests in flight, so a lost session fails them at once. */
  readonly inFlight: Set<{ stop(outcome: McpError): void }>;
  hasSessionId(): boolean;
  close(): Promise<void>;
}

export interface OpenSessionOptions extends ConnectOptions {
  deadline: number;
  events: SessionEvents;
}

export async function openSession(target: McpTarget, kind: ResolvedTransport, options: OpenSessionOptions): Promise<Session> {
  const transport = createTransport(target, kind, options.fetch);
  const stderr = drainStderr(transport);
  let established = false;
  let closing: Promise<void> | undefined;
  let protocolVersion: string | undefined;
  // Set before connect(): the SDK chains handlers that are already present.
  transport.onmessage = (message) => {
    if (protocolVersion === undefined && 'result' in message && typeof message.result.protocolVersion === 'string') {
      protocolVersion = message.result.protocolVersion;
    }
  };
  transport.onclose = () => {
    if (established && closing === undefined) options.events.onClose();
  };
  transport.onerror = (error) => {
    if (established && closing === undefined) options.events.onError(error);
  };
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.onElicitation ? { elicitation: { form: {} } } : {},
    jsonSchemaValidator: sdkSchemaValidator,
  });
  const onElicitation = options.onElicitation && elicitationHandler(options.onElicitation);
  if (onElicitation) {
    client.setRequestHandler(
      ElicitRequestSchema,
      ({ params }) =>
        onElicitation({
          message: params.message,
          requestedSchema: 'requestedSchema' in params ? params.requestedSchema : {},
        }) as Promise<ElicitResult>,
    );
  }
  const onToolsListChanged = options.onToolsListChanged;
  if (onToolsListChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsListChanged());
  // Also used when the handshake is abandoned: initialize may already have opened a server session.
  const close = () => (closing ??= shutdown(client, transport));

  await connectWithin(client, transport, options, close, stderr);

  established = true;
  const version = client.getServerVersion();
  const sessionId = httpSessionIdOf(transport);
  const session: Session = {
    client: v1Wire(client),
    kind,
    serverInfo: { name: version?.name ?? 'unknown', version: version?.version ?? 'unknown', protocolVersion: protocolVersion ?? 'unknown' },
    ...(sessionId !== undefined && { sessionId }),
    lost: false,
    inFlight: new Set(),
    hasSessionId: () => kind === 'sse' || httpSessionIdOf(transport) !== undefined,
    close,
  };
  return session;
}

function v1Wire(client: Client): WireClient {
  return {
    request: (request, schema, options) => client.request(request as ClientRequest, schema as unknown as AnySchema, options) as never,
    ping: (options) => client.ping(options),
  };
}

/** DELETE first (best effort, also for a lost session: a blip may have spared it), then close. */
async function shutdown(client: Client, transport: Transport): Promise<void> {
  if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    await withTimeout(transport.terminateSession(), TERMINATE_TIMEOUT_MS).catch(() => undefined);
  }
  await client.close().catch(() => undefined);
  await transport.close().catch(() => undefined);
}

async function connectWithin(
  client: Client,
  transport: Transport,
  options: OpenSessionOptions,
  abandon: () => Promise<void>,
  stderr: () => string,
): Promise<void> {
  const timeoutMs = Math.max(1, options.deadline - Date.now());
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(new McpError(McpErrorCode.UNREACHABLE, `no MCP handshake within ${timeoutMs} ms`)), timeoutMs);
  const onCancel = () => stop.abort(new McpError(McpErrorCode.CANCELED, 'connecting was canceled'));
  options.signal?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted) onCancel();
  try {
    // SSE's start() ignores signals, hence the race against the abort.
    const connecting = client.connect(transport, { signal: stop.signal, timeout: timeoutMs });
    connecting.catch(() => undefined);
    await abortable(connecting, stop.signal);
  } catch (error) {
    await abandon();
    if (stop.signal.aborted) throw stop.signal.reason;
    const tail = stderr();
    throw toMcpError(error, tail ? `connect failed (stderr: ${tail})` : 'connect failed');
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}

/** Keeps the last lines of a stdio server's stderr (for error messages); an unread pipe would block the child. */
function drainStderr(transport: Transport): () => string {
  if (!(transport instanceof StdioClientTransport)) return () => '';
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail.trim();
}
