import { Injectable } from '@nestjs/common';
import type { ToolDescriptor } from '../engine/types.js';
import { toolDescriptorOf } from './toolset-catalog.js';
import type { ToolsetConnection } from '../persistence/toolset-records.js';
import { ToolsetRepository } from '../persistence/toolset.repository.js';

/** A toolset as one run uses it: how to connect, and its tools, both of one revision. */
export interface ToolsetSnapshot {
  connection: ToolsetConnection;
  tools: ToolDescriptor[];
}

/** Toolsets whose tools are kept in memory per process. */
const CACHE_SIZE = 200;

/**
 * Toolsets for runs, one read each. Every write to a toolset moves its `revision` on, so parsed
 * tools cached under a revision are never stale: a toolset seen before is read without its tools
 * (the connection, which may have changed, always comes from the store), and read whole only
 * when its revision moved or it was never seen.
 */
@Injectable()
export class ToolsetSnapshots {
  private readonly cache = new Map<string, { revision: number; tools: ToolDescriptor[] }>();

  constructor(private readonly toolsets: ToolsetRepository) {}

  /** undefined when the toolset does not exist. The connection holds secrets: never log, store or return it. */
  async load(toolsetId: string): Promise<ToolsetSnapshot | undefined> {
    const cached = this.cache.get(toolsetId);
    if (cached) {
      const connection = await this.toolsets.connectionOf(toolsetId);
      if (!connection) return undefined;
      if (connection.revision === cached.revision) {
        // Re-inserted to mark it recently used: the map's order is the eviction order.
        this.cache.delete(toolsetId);
        this.cache.set(toolsetId, cached);
        return { connection, tools: cached.tools };
      }
    }
    const found = await this.toolsets.findWithConnection(toolsetId);
    if (!found) return undefined;
    const tools = found.toolset.tools.map((tool) => toolDescriptorOf(toolsetId, tool));
    this.cache.delete(toolsetId);
    if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(toolsetId, { revision: found.connection.revision, tools });
    return { connection: found.connection, tools };
  }
}
