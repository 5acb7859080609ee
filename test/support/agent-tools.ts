/**
 * Real MCP servers for agent tests, as two toolsets: `everything` (server-everything over
 * Streamable HTTP, in a child process) and `fixture` (the in-process fixture server, which also
 * has an `echo` tool — a name clash across toolsets — plus `fail` (isError) and `slow`).
 * Tools are listed once into a catalog; each run gets its own MCP client pool and the worker's
 * PooledToolInvoker over it, closed at the end of the run like the worker does.
 */
import { listToolset, McpClientPool, type McpTarget } from '#mcp';
import { startFixtureServer, startServerEverything, type FixtureServer, type ServerEverything } from '#mcp/testing';
import { DEFAULT_ENGINE_LIMITS, type ToolCatalog, type ToolDescriptor, type ToolInvoker } from '#workflow';
import { toolDescriptorOf } from '#workflow/nest';
import { PooledToolInvoker } from '../../apps/worker/src/runs/run-tools.js';

export const EVERYTHING = 'everything';
export const FIXTURE = 'fixture';

export interface RunTools {
  invoker: ToolInvoker;
  pool: McpClientPool;
  close(): Promise<void>;
}

export interface AgentTools {
  everything: ServerEverything;
  fixture: FixtureServer;
  catalog: ToolCatalog;
  newRun(): RunTools;
  close(): Promise<void>;
}

export async function startAgentTools(): Promise<AgentTools> {
  const everything = await startServerEverything('streamableHttp');
  const fixture = await startFixtureServer();
  try {
    const targets: Record<string, McpTarget> = { [EVERYTHING]: { url: everything.url }, [FIXTURE]: { url: fixture.url } };
    const tools: Record<string, ToolDescriptor[]> = {};
    for (const [id, target] of Object.entries(targets)) {
      tools[id] = (await listToolset(target)).tools.map((tool) => toolDescriptorOf(id, tool));
    }
    const catalog: ToolCatalog = {
      listTools: async (toolsetId) => tools[toolsetId],
      getTool: async (toolsetId, name) => tools[toolsetId]?.find((tool) => tool.name === name),
    };
    const targetSource = { toolsetConnectionTarget: async (toolsetId: string) => targets[toolsetId] };
    return {
      everything,
      fixture,
      catalog,
      newRun() {
        const pool = new McpClientPool();
        return {
          pool,
          invoker: new PooledToolInvoker(pool, targetSource, catalog, DEFAULT_ENGINE_LIMITS.callTimeoutMs),
          close: () => pool.closeAll(),
        };
      },
      async close() {
        await Promise.all([everything.close(), fixture.close()]);
      },
    };
  } catch (error) {
    await Promise.all([everything.close(), fixture.close()]);
    throw error;
  }
}
