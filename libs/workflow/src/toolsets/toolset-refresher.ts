import { Injectable } from '@nestjs/common';
import { listToolset } from '#mcp';
import { diffTools, type ToolDiff } from '../persistence/tool-diff.js';
import { ToolsetChangeRepository } from '../persistence/toolset-change.repository.js';
import type { ToolsetChangeSource } from '../persistence/toolset-change.schema.js';
import { ToolsetRepository } from '../persistence/toolset.repository.js';
import { connectionSpecOf, ToolsetTargets } from './toolset-targets.js';

/** What a background refresh did. */
export type RefreshOutcome = { status: 'missing' } | { status: 'unchanged' } | ({ status: 'changed' } & ToolDiff);

/** Writes that lost to a concurrent one are tried again this many times (each with a new listing). */
const ATTEMPTS = 3;

/**
 * Takes a new snapshot of a toolset in the background (after `notifications/tools/list_changed`):
 * lists its tools with the toolset's own transport mode, and — only when something changed, so an
 * idle notification moves no revision and invalidates no cache — stores the snapshot and records
 * the difference in the toolset's history. Failures (server down, stdio gate) are thrown for the
 * caller (a BullMQ job) to log.
 */
@Injectable()
export class ToolsetRefresher {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly targets: ToolsetTargets,
    private readonly changes: ToolsetChangeRepository,
  ) {}

  async refresh(toolsetId: string, source: ToolsetChangeSource): Promise<RefreshOutcome> {
    for (let attempt = 1; ; attempt++) {
      const found = await this.toolsets.findWithConnection(toolsetId);
      if (!found) return { status: 'missing' };
      const { toolset, connection } = found;
      const listed = await listToolset(this.targets.targetFor(connectionSpecOf(connection, { transport: 'requested' })));
      const listing = { serverInfo: listed.serverInfo, transport: listed.transport, tools: listed.tools };
      const diff = diffTools(toolset.tools, listing.tools);
      if (!diff.added.length && !diff.removed.length && !diff.changed.length) return { status: 'unchanged' };
      const secrets = connection.kind === 'stdio' ? { env: connection.env } : { headers: connection.headers };
      const outcome = await this.toolsets.update(toolsetId, connection.revision, { listing, ...secrets });
      if (outcome.ok) {
        await this.changes.record(toolsetId, source, diff);
        return { status: 'changed', ...diff };
      }
      if (outcome.reason === 'missing') return { status: 'missing' };
      if (attempt >= ATTEMPTS) throw new Error(`toolset ${toolsetId} kept changing while it was refreshed`);
    }
  }
}
