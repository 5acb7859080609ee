/**
 * A dependable MCP connection. It owns one live session at a time and replaces it when the
 * server has lost it (restart: 404, or 400 on a stale id): the request that failed never reached
 * a live session, so it is sent once more. A request that may have been processed is never
 * repeated here. When the transport errors while calls are in flight, a ping tells whether the
 * session is gone, and if so those calls fail at once instead of waiting for their timeout.
 */
import { McpError, McpErrorCode } from '../errors.js';
import { validateArguments } from '../schema/validate-arguments.js';
import type {
  CallToolOptions,
  ConnectionFailure,
  ConnectOptions,
  JsonSchema,
  ListToolsOptions,
  McpConnection,
  McpTarget,
  NormalizedToolResult,
  ResolvedTransport,
  ServerInfo,
  ToolSnapshot,
} from '../types.js';
import { abortable } from './async-utils.js';
import { CallDeadline, DEFAULT_CALL_TIMEOUT_MS } from './call-deadline.js';
import { toMcpError, wasNotDelivered } from './classify.js';
import { attemptOf, openResolved, openWithRetry, preparedDeadline } from './open.js';
import type { Session, SessionEvents } from './session.js';
import { listAllTools } from './tool-snapshot.js';
import { CallElicitation, withCallElicitation } from './elicitation-scope.js';
import { callInRounds } from './input-rounds.js';
import { checkStructuredContent, LenientCallToolResult, normalizeResult } from './tool-result.js';

const LIST_TIMEOUT_MS = 60_000;
const PROBE_TIMEOUT_MS = 5_000;

type RequestOptions = ReturnType<CallDeadline['requestOptions']>;
interface KnownTool {
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

export class Connection implements McpConnection {
  private session!: Session;
  private reopening?: Promise<Session>;
  private closing?: Promise<void>;
  private probing = false;
  private readonly retiring = new Set<Promise<void>>();
  private readonly listeners = new Set<(failure: ConnectionFailure) => void>();
  private readonly knownTools = new Map<string, KnownTool>();
  private readonly events: SessionEvents = {
    onClose: () => this.handleFailure({ kind: 'close' }),
    onError: (error) => this.handleFailure({ kind: 'error', error }),
  };

  private constructor(
    private readonly target: McpTarget,
    private readonly options: ConnectOptions,
  ) {}

  static async open(target: McpTarget, options: ConnectOptions = {}): Promise<Connection> {
    const connection = new Connection(target, options);
    connection.session = await openResolved(target, options, connection.events);
    connection.announce(connection.session);
    return connection;
  }

  get serverInfo(): ServerInfo {
    return this.session.serverInfo;
  }

  get transport(): ResolvedTransport {
    return this.session.kind;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  get sessionId(): string | undefined {
    return this.session.sessionId;
  }

  async listTools(options: ListToolsOptions = {}): Promise<ToolSnapshot[]> {
    const timing = { timeoutMs: options.timeoutMs ?? LIST_TIMEOUT_MS, signal: options.signal };
    const tools = await this.request('tools/list', timing, (session, requestOptions) => listAllTools(session.client, requestOptions));
    for (const tool of tools) this.knownTools.set(tool.name, { inputSchema: tool.inputSchema, outputSchema: tool.outputSchema });
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallToolOptions = {}): Promise<NormalizedToolResult> {
    const known = this.knownTools.get(name);
    const inputSchema = options.inputSchema ?? known?.inputSchema;
    if (inputSchema !== undefined) {
      const check = validateArguments(inputSchema, args);
      if (!check.ok) {
        const summary = check.errors.map((e) => `${e.path || '(root)'} ${e.message}`).join('; ');
        throw new McpError(McpErrorCode.INPUT_INVALID, `invalid arguments for tool "${name}": ${summary}`, { errors: check.errors });
      }
    }
    const answerer = options.onElicitation ?? this.options.onElicitation;
    const elicitation = new CallElicitation(answerer, `tool "${name}"`);
    const signal = options.signal ? AbortSignal.any([options.signal, elicitation.signal]) : elicitation.signal;
    let result: NormalizedToolResult;
    try {
      result = await withCallElicitation(elicitation.sdkAnswerer, () =>
        this.request(`tool "${name}"`, { ...options, signal }, async (session, requestOptions) => {
          if (session.stateless) {
            return normalizeResult(await callInRounds(session, name, args, answerer, options.inputResponses, requestOptions));
          }
          const raw = await session.client.request(
            { method: 'tools/call', params: { name, arguments: args, ...(options.meta && { _meta: options.meta }) } },
            LenientCallToolResult,
            requestOptions,
          );
          return normalizeResult(raw);
        }),
      );
    } catch (error) {
      throw elicitation.deferred ?? error;
    }
    checkStructuredContent(name, result, options.outputSchema ?? known?.outputSchema);
    return result;
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  onFailure(listener: (failure: ConnectionFailure) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async request<T>(
    what: string,
    timing: CallToolOptions,
    send: (session: Session, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    if (this.closing) throw new McpError(McpErrorCode.CANCELED, `${what}: the connection is closed`);
    const deadline = new CallDeadline({
      what,
      timeoutMs: timing.timeoutMs ?? this.target.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      maxTotalTimeoutMs: timing.maxTotalTimeoutMs,
      signal: timing.signal,
      onProgress: timing.onProgress,
    });
    try {
      let session = await abortable(this.usableSession(), deadline.signal);
      try {
        return await this.tracked(session, deadline, send);
      } catch (error) {
        if (deadline.signal.aborted || this.closing || !wasNotDelivered(error, session.hasSessionId())) throw error;
        session = await abortable(this.replace(session), deadline.signal);
        return await this.tracked(session, deadline, send);
      }
    } catch (error) {
      throw deadline.explain() ?? toMcpError(error, what);
    } finally {
      deadline.dispose();
    }
  }

  private async tracked<T>(
    session: Session,
    deadline: CallDeadline,
    send: (session: Session, options: RequestOptions) => Promise<T>,
  ): Promise<T> {
    session.inFlight.add(deadline);
    try {
      return await send(session, deadline.requestOptions());
    } finally {
      session.inFlight.delete(deadline);
    }
  }

  private usableSession(): Promise<Session> {
    return this.session.lost ? this.replace(this.session) : Promise.resolve(this.session);
  }

  /** One replacement however many requests saw the stale session fail. */
  private replace(stale: Session): Promise<Session> {
    if (this.session !== stale) return Promise.resolve(this.session);
    this.reopening ??= this.reopen(stale).finally(() => {
      this.reopening = undefined;
    });
    return this.reopening;
  }

  private async reopen(stale: Session): Promise<Session> {
    stale.lost = true;
    this.retire(stale);
    // Not bound to the connect signal of the first session: that request is long gone.
    const fresh = await openWithRetry(
      this.target,
      attemptOf(stale),
      { ...this.options, signal: undefined },
      this.events,
      await preparedDeadline(this.target),
    );
    if (this.closing) {
      await fresh.close();
      throw new McpError(McpErrorCode.CANCELED, 'the connection was closed while it reconnected');
    }
    this.session = fresh;
    this.announce(fresh);
    return fresh;
  }

  /** A throwing listener must not cost the session its owner (it would stay open on the server). */
  private announce(session: Session): void {
    if (session.sessionId === undefined) return;
    try {
      this.options.onSessionOpened?.(session.sessionId);
    } catch {
      // the listener's own failure; the connection is fine
    }
  }

  private retire(session: Session): void {
    const closing = session.close().finally(() => this.retiring.delete(closing));
    this.retiring.add(closing);
  }

  private handleFailure(failure: ConnectionFailure): void {
    if (this.closing) return;
    const session = this.session;
    if (failure.kind === 'close') session.lost = true;
    for (const listener of this.listeners) listener(failure);
    if (failure.kind === 'error' && session.inFlight.size > 0) void this.probe(session);
  }

  private async probe(session: Session): Promise<void> {
    if (this.probing || session.lost) return;
    this.probing = true;
    try {
      await session.client.ping({ timeout: PROBE_TIMEOUT_MS });
    } catch (error) {
      if (!wasNotDelivered(error, session.hasSessionId())) return;
      session.lost = true;
      const lost = new McpError(McpErrorCode.UNREACHABLE, 'the MCP session was lost while the request was in flight; it is not repeated', {
        cause: error,
      });
      for (const call of session.inFlight) call.stop(lost);
    } finally {
      this.probing = false;
    }
  }

  private async shutdown(): Promise<void> {
    await this.reopening?.catch(() => undefined);
    const session = this.session;
    const closed = new McpError(McpErrorCode.CANCELED, 'the connection was closed while the request was in flight');
    for (const call of session.inFlight) call.stop(closed);
    await Promise.all([session.close(), ...this.retiring]);
  }
}
