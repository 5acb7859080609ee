import { poolKey, type AcquiredConnection, type McpClientPool, type McpTarget } from '#mcp';
import { PromiseMemo } from './promise-memo.js';
import {
  ENGINE_ERROR_CODES,
  EngineError,
  type ToolCallRequest,
  type ToolCallResult,
  type ToolCatalog,
  type ToolDescriptor,
  type ToolInvoker,
} from '#workflow';
import { connectionSpecOf, type ConnectionSpec, type ToolsetSnapshot } from '#workflow/nest';

/** Where the invoker gets a toolset's MCP target (headers opened, SSRF-safe fetch). */
export interface TargetSource {
  toolsetConnectionTarget(toolsetId: string): Promise<McpTarget | undefined>;
}

export interface SnapshotSource {
  load(toolsetId: string): Promise<ToolsetSnapshot | undefined>;
}

/** Where the connections of `per-worker` stdio toolsets come from (SharedStdioServers), and which toolsets those are. */
export interface SharedServers {
  isShared(toolsetId: string): Promise<boolean>;
  acquire(toolsetId: string, target: McpTarget): Promise<AcquiredConnection>;
}

export interface TargetFactory {
  targetFor(spec: ConnectionSpec): McpTarget;
}

/**
 * One run's toolsets (ToolsetSnapshots): each read once, its tools and its connection from that
 * one read, so a run sees one snapshot of a toolset even if it is refreshed meanwhile, and the
 * engine's repeated lookups (redaction, input checks, calls) cost no further query. The run's
 * ToolCatalog and the TargetSource of its pool.
 */
export class RunToolsets implements ToolCatalog, TargetSource {
  private readonly loads = new PromiseMemo<ToolsetSnapshot | undefined>();

  constructor(
    private readonly snapshots: SnapshotSource,
    private readonly targets: TargetFactory,
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
    return snapshot && this.targets.targetFor(connectionSpecOf(snapshot.connection));
  }
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
  ) {}

  async callTool(request: ToolCallRequest): Promise<ToolCallResult> {
    const target = await this.targetOf(request.toolsetId);
    if (!target) throw new EngineError(ENGINE_ERROR_CODES.unknownToolset, `toolset "${request.toolsetId}" does not exist (deleted after the run started?)`);
    const descriptor = await this.catalog.getTool(request.toolsetId, request.tool);
    const key = poolKey(target);
    const firstCall = !this.used.has(key);
    this.used.add(key);
    const acquired = await this.acquire(request.toolsetId, target);
    const { connection } = acquired;
    // Reused: a session an earlier call of this run used, not one merely opened ahead of it.
    const reused = acquired.reused && !firstCall;
    const timeoutMs = request.timeoutMs === undefined || request.timeoutMs === this.defaultCallTimeoutMs ? target.timeoutMs : request.timeoutMs;
    const result = await connection.callTool(request.tool, request.arguments, {
      signal: request.signal,
      timeoutMs,
      ...(descriptor && { inputSchema: descriptor.inputSchema }),
      ...(descriptor?.outputSchema !== undefined && { outputSchema: descriptor.outputSchema }),
    });
    return {
      isError: result.isError,
      ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent }),
      text: result.text,
      content: result.content,
      transport: connection.transport,
      sessionReused: reused,
    };
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
