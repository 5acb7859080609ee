import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { McpClientPool, poolKey, type AcquiredConnection, type McpTarget } from '#mcp';
import { ToolsetRefreshRequests } from '#workflow/nest';

/**
 * The local servers of `process: per-worker` stdio toolsets: one process per toolset for this
 * whole worker, shared by its runs (bench/stdio.bench.ts: a run's calls then cost ~2 ms instead
 * of the 0.23–0.62 s of starting the server). Runs do not close it; a process that dies is
 * replaced at the next call (the pool evicts it), one whose toolset changed (command, args, env,
 * timeout: another pool key) is closed and replaced, and all end when the worker stops.
 */
@Injectable()
export class SharedStdioServers implements OnApplicationShutdown {
  private readonly logger = new Logger(SharedStdioServers.name);
  private readonly byToolset = new Map<string, { key: string; pool: McpClientPool }>();

  constructor(private readonly refreshes: ToolsetRefreshRequests) {}

  acquire(toolsetId: string, target: McpTarget): Promise<AcquiredConnection> {
    const key = poolKey(target);
    let entry = this.byToolset.get(toolsetId);
    if (entry?.key !== key) {
      // Closed in the background: a call of another run may still be finishing on the old process.
      if (entry) void this.close(toolsetId, entry.pool);
      entry = { key, pool: new McpClientPool({ onToolsListChanged: () => this.refreshes.request(toolsetId) }) };
      this.byToolset.set(toolsetId, entry);
    }
    return entry.pool.acquire(target);
  }

  /** After every module's destroy hook, so runs still finishing during the shutdown grace keep their server. */
  async onApplicationShutdown(): Promise<void> {
    const entries = [...this.byToolset.entries()];
    this.byToolset.clear();
    await Promise.all(entries.map(([toolsetId, entry]) => this.close(toolsetId, entry.pool)));
  }

  private async close(toolsetId: string, pool: McpClientPool): Promise<void> {
    await pool
      .closeAll()
      .catch((error: unknown) => this.logger.warn({ err: error, toolsetId }, 'a shared stdio server did not close cleanly'));
  }
}
