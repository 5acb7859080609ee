import {
  defaultsOf,
  isMcpError,
  McpErrorCode,
  poolKey,
  type AcquiredConnection,
  type ElicitationAnswer,
  type ElicitationRequest,
  type McpClientPool,
  type McpTarget,
} from '#mcp';
import { PromiseMemo } from './promise-memo.js';
import type { RunInput } from './run-input.js';
import {
  ENGINE_ERROR_CODES,
  EngineError,
  type ElicitationPolicy,
  type ElicitationRecord,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolCatalog,
  type ToolDescriptor,
  type ToolInvoker,
} from '#workflow';
import { connectionSpecOf, hasHeaderTemplates, type ConnectionSpec, type ToolsetSnapshot } from '#workflow/nest';

/** The `_meta` entry of a tool call that carries its idempotency key (FencedToolInvoker). */
export const IDEMPOTENCY_META_KEY = 'mcpflow/idempotencyKey';

/** Where the invoker gets a toolset's MCP target (headers opened, SSRF-safe fetch). */
export interface TargetSource {
  toolsetConnectionTarget(toolsetId: string): Promise<McpTarget | undefined>;
}

export interface SnapshotSource {
  load(toolsetId: string): Promise<ToolsetSnapshot | undefined>;
}

/** One finished tool call, for usage figures; `errorCode` absent when it succeeded (an `isError` result is `MCP_TOOL_ERROR`). */
export interface CallOutcome {
  toolsetId: string;
  tool: string;
  at: Date;
  durationMs: number;
  errorCode?: string;
}

/** Where the connections of `per-worker` stdio toolsets come from (SharedStdioServers), and which toolsets those are. */
export interface SharedServers {
  isShared(toolsetId: string): Promise<boolean>;
  acquire(toolsetId: string, target: McpTarget): Promise<AcquiredConnection>;
}

export interface TargetFactory {
  /** With `secrets`, header templates are filled from them; with `subject`, a per-user OAuth toolset uses that subject's grant (ToolsetTargets). */
  targetFor(spec: ConnectionSpec, secrets?: Record<string, unknown>, subject?: string): McpTarget;
}

/** Per-user OAuth toolsets in a run (RunAuthorizations): whose grant, and the wait for one. */
export interface AuthorizationWaits {
  subject(): Promise<string>;
  waitFor(toolsetId: string, tool: string, nodeId: string): Promise<EngineError | undefined>;
}

/**
 * One run's toolsets (ToolsetSnapshots): each read once, its tools and its connection from that
 * one read, so a run sees one snapshot of a toolset even if it is refreshed meanwhile, and the
 * engine's repeated lookups (redaction, input checks, calls) cost no further query. The run's
 * ToolCatalog and the TargetSource of its pool.
 */
export class RunToolsets implements ToolCatalog, TargetSource {
  private readonly loads = new PromiseMemo<ToolsetSnapshot | undefined>();
  /** Which toolset each handed-out target belongs to (a pool reports events by target). */
  private readonly toolsetOfTarget = new WeakMap<McpTarget, string>();

  constructor(
    private readonly snapshots: SnapshotSource,
    private readonly targets: TargetFactory,
    /** The run's secret inputs, for toolsets whose headers are templates over them. */
    private readonly secretInputs: () => Promise<Record<string, unknown>> = () => Promise.resolve({}),
    /** The run's end-user subject, for per-user OAuth toolsets (without it, such a toolset is refused, never given another grant). */
    private readonly subject?: () => Promise<string>,
  ) {}

  load(toolsetId: string): Promise<ToolsetSnapshot | undefined> {
    return this.loads.get(toolsetId, () => this.snapshots.load(toolsetId));
  }

  async getTool(toolsetId: string, tool: string): Promise<ToolDescriptor | undefined> {
    return (await this.load(toolsetId))?.tools.find((candidate) => candidate.name === tool);
  }

  async listTools(toolsetId: string): Promise<ToolDescriptor[] | undefined> {
    return (await this.load(toolsetId))?.tools;
  }

  /** Whether the toolset's server is a worker's shared process (`per-worker` stdio) rather than the run's own. */
  async sharedProcess(toolsetId: string): Promise<boolean> {
    const connection = (await this.load(toolsetId))?.connection;
    return connection?.kind === 'stdio' && connection.process === 'per-worker';
  }

  /** The transport the server spoke at the last listing, so no probing. */
  async toolsetConnectionTarget(toolsetId: string): Promise<McpTarget | undefined> {
    const snapshot = await this.load(toolsetId);
    if (!snapshot) return undefined;
    const spec = connectionSpecOf(snapshot.connection);
    const perUser = spec.kind !== 'stdio' && spec.auth?.perUser === true;
    if (perUser && !this.subject) throw new Error(`toolset ${toolsetId} keeps tokens per end user, and this run has no subject`);
    // Two runs with different tokens get different headers, hence different pool keys: they never share a session.
    const target = this.targets.targetFor(
      spec,
      spec.kind !== 'stdio' && hasHeaderTemplates(spec.headers) ? await this.secretInputs() : undefined,
      perUser ? await this.subject?.() : undefined,
    );
    this.toolsetOfTarget.set(target, toolsetId);
    return target;
  }

  /** The toolset a target given out by toolsetConnectionTarget() belongs to. */
  toolsetOf(target: McpTarget): string | undefined {
    return this.toolsetOfTarget.get(target);
  }
}

/** The node's policy as an elicitation answerer; what was asked and answered is kept for the run log. `pause` without a run to pause declines. */
export function answerElicitation(
  policy: ElicitationPolicy,
  seen: ElicitationRecord[],
): (request: ElicitationRequest) => Promise<ElicitationAnswer> {
  return async ({ message, requestedSchema }) => {
    const answer: ElicitationAnswer =
      policy === 'decline' || policy === 'pause'
        ? { action: 'decline' }
        : { action: 'accept', content: policy === 'defaults' ? defaultsOf(requestedSchema) : policy.answer };
    seen.push({ message, action: answer.action });
    return answer;
  };
}

/**
 * The engine's ToolInvoker for one run: every call goes through the run's MCP client pool, so
 * calls to one server share one session, and closing the pool ends them all.
 */
export class PooledToolInvoker implements ToolInvoker {
  private readonly targets = new PromiseMemo<McpTarget | undefined>();
  /** Pool keys this invoker has called through: the pool may have opened a session before any call (connected ahead). */
  private readonly used = new Set<string>();

  constructor(
    private readonly pool: McpClientPool,
    private readonly targetSource: TargetSource,
    private readonly catalog: ToolCatalog,
    /** The global default call timeout: a node without `timeoutMs` gets its toolset's instead. */
    private readonly defaultCallTimeoutMs: number,
    /** `per-worker` stdio toolsets are called through these instead of the run's pool. */
    private readonly shared?: SharedServers,
    /** Told of every call sent (not of one refused before sending), for usage; must not throw. */
    private readonly onCall?: (call: CallOutcome) => void,
    /** The run's answers for `pause` nodes, and where their deferred requests go. */
    private readonly input?: RunInput,
    /** Per-user OAuth toolsets: a call whose subject has no usable grant waits for its authorization. */
    private readonly authorizations?: AuthorizationWaits,
  ) {}

  async callTool(request: ToolCallRequest): Promise<ToolCallResult> {
    const target = await this.targetOf(request.toolsetId);
    if (!target)
      throw new EngineError(
        ENGINE_ERROR_CODES.unknownToolset,
        `toolset "${request.toolsetId}" does not exist (deleted after the run started?)`,
      );
    const descriptor = await this.catalog.getTool(request.toolsetId, request.tool);
    const key = poolKey(target);
    const firstCall = !this.used.has(key);
    this.used.add(key);
    const acquired = await this.acquire(request.toolsetId, target).catch(async (error: unknown) => {
      throw (await this.authorizationWait(request, error)) ?? error;
    });
    const { connection } = acquired;
    // Reused: a session an earlier call of this run used, not one merely opened ahead of it.
    const reused = acquired.reused && !firstCall;
    const timeoutMs =
      request.timeoutMs === undefined || request.timeoutMs === this.defaultCallTimeoutMs ? target.timeoutMs : request.timeoutMs;
    const at = new Date();
    const outcome = (errorCode?: string) =>
      this.onCall?.({
        toolsetId: request.toolsetId,
        tool: request.tool,
        at,
        durationMs: Date.now() - at.getTime(),
        ...(errorCode && { errorCode }),
      });
    const elicitations: ElicitationRecord[] = [];
    const { nodeId } = request;
    const paused = request.elicitation === 'pause' && nodeId !== undefined ? await this.input?.forCall(nodeId, elicitations) : undefined;
    let result: Awaited<ReturnType<typeof connection.callTool>>;
    try {
      result = await connection.callTool(request.tool, request.arguments, {
        signal: request.signal,
        timeoutMs,
        onElicitation: paused?.answerer ?? answerElicitation(request.elicitation ?? 'decline', elicitations),
        ...(paused?.inputResponses && { inputResponses: paused.inputResponses }),
        ...(request.idempotencyKey !== undefined && { meta: { [IDEMPOTENCY_META_KEY]: request.idempotencyKey } }),
        ...(descriptor && { inputSchema: descriptor.inputSchema }),
        ...(descriptor?.outputSchema !== undefined && { outputSchema: descriptor.outputSchema }),
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'MCP_INPUT_INVALID') outcome(typeof code === 'string' ? code : 'MCP_ERROR');
      const waiting = await this.authorizationWait(request, error);
      if (waiting) throw waiting;
      if (!paused || nodeId === undefined || !isMcpError(error, McpErrorCode.INPUT_REQUIRED) || !error.pendingInput) throw error;
      // The node waits: the request goes into its log and onto the run; the call is resumed later.
      this.input?.noteDeferred(nodeId, error.pendingInput);
      const { toolsetId, tool } = request;
      const details = { toolsetId, tool, transport: connection.transport, inputRequest: error.pendingInput.request };
      throw new EngineError(ENGINE_ERROR_CODES.inputRequired, error.message, {
        details: { ...details, ...(elicitations.length > 0 && { elicitations }) },
      });
    }
    outcome(result.isError ? McpErrorCode.TOOL_ERROR : undefined);
    return {
      isError: result.isError,
      ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }),
      text: result.text,
      content: result.content,
      transport: connection.transport,
      sessionReused: reused,
      ...(elicitations.length > 0 && { elicitations }),
    };
  }

  /** The node's wait for its subject's authorization, when `error` says a per-user toolset's grant is missing or lost. */
  private async authorizationWait(request: ToolCallRequest, error: unknown): Promise<EngineError | undefined> {
    if (!this.authorizations || request.nodeId === undefined || !isMcpError(error, McpErrorCode.AUTH_REQUIRED)) return undefined;
    return this.authorizations.waitFor(request.toolsetId, request.tool, request.nodeId);
  }

  /** Opens a toolset's session before a call needs it; a failure is left for that call to meet (the pool forgets it). */
  async connectAhead(toolsetId: string): Promise<void> {
    const target = await this.targetOf(toolsetId);
    if (target) await this.acquire(toolsetId, target);
  }

  private async acquire(toolsetId: string, target: McpTarget): Promise<AcquiredConnection> {
    if (this.shared && (await this.shared.isShared(toolsetId))) return this.shared.acquire(toolsetId, target);
    return this.pool.acquire(target);
  }

  private targetOf(toolsetId: string): Promise<McpTarget | undefined> {
    return this.targets.get(toolsetId, () => this.targetSource.toolsetConnectionTarget(toolsetId));
  }
}
