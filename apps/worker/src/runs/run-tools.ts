import type { McpClientPool, McpTarget } from '#mcp';
import { EngineError, type ToolCallRequest, type ToolCallResult, type ToolCatalog, type ToolDescriptor, type ToolInvoker } from '#workflow';

/** Where the invoker gets a toolset's MCP target (headers opened, SSRF-safe fetch). */
export interface TargetSource {
  toolsetConnectionTarget(toolsetId: string): Promise<McpTarget | undefined>;
}

/**
 * One run's view of the toolset catalog: each tool looked up once, so a run sees one snapshot
 * of its tools even if a toolset is refreshed meanwhile, and the engine's repeated lookups
 * (validation of inputs, execution) cost one query.
 */
export function runCatalog(catalog: ToolCatalog): ToolCatalog {
  const tools = new Map<string, Promise<ToolDescriptor | undefined>>();
  const lists = new Map<string, Promise<ToolDescriptor[] | undefined>>();
  const remember = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> => {
    let pending = cache.get(key);
    if (!pending) {
      pending = load();
      cache.set(key, pending);
      pending.catch(() => cache.delete(key));
    }
    return pending;
  };
  return {
    getTool: (toolsetId, tool) => remember(tools, `${toolsetId}\u0000${tool}`, () => catalog.getTool(toolsetId, tool)),
    listTools: (toolsetId) => remember(lists, toolsetId, () => catalog.listTools(toolsetId)),
  };
}

/**
 * The engine's ToolInvoker for one run: every call goes through the run's MCP client pool, so
 * calls to one server share one session, and closing the pool ends them all.
 */
export class PooledToolInvoker implements ToolInvoker {
  private readonly targets = new Map<string, Promise<McpTarget | undefined>>();

  constructor(
    private readonly pool: McpClientPool,
    private readonly targetSource: TargetSource,
    private readonly catalog: ToolCatalog,
    /** The global default call timeout: a node without `timeoutMs` gets its toolset's instead. */
    private readonly defaultCallTimeoutMs: number,
  ) {}

  async callTool(request: ToolCallRequest): Promise<ToolCallResult> {
    const target = await this.targetOf(request.toolsetId);
    if (!target) throw new EngineError('UNKNOWN_TOOLSET', `toolset "${request.toolsetId}" does not exist (deleted after the run started?)`);
    const descriptor = await this.catalog.getTool(request.toolsetId, request.tool);
    const { connection, reused } = await this.pool.acquire(target);
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

  private targetOf(toolsetId: string): Promise<McpTarget | undefined> {
    let pending = this.targets.get(toolsetId);
    if (!pending) {
      pending = this.targetSource.toolsetConnectionTarget(toolsetId);
      this.targets.set(toolsetId, pending);
      pending.catch(() => this.targets.delete(toolsetId));
    }
    return pending;
  }
}
