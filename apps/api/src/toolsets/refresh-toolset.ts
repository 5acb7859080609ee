import { Injectable } from '@nestjs/common';
import { ToolsetChangeRepository, ToolsetRepository, connectionSpecOf, diffTools, type ToolDiff, type ToolsetRecord } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { Requester } from './requester.js';
import { ToolsetListing } from './toolset-listing.js';
import { updatedOrThrow } from './update-toolset.js';

/** POST /toolsets/:id/refresh: list the tools again (the toolset's own transport mode), store the new snapshot, say what changed (and keep it in the history). */
@Injectable()
export class RefreshToolset {
  constructor(
    private readonly listing: ToolsetListing,
    private readonly toolsets: ToolsetRepository,
    private readonly changes: ToolsetChangeRepository,
  ) {}

  /** `requester`: the API key asking (`updatedBy`; a stdio toolset needs `admin`). */
  async execute(id: string, requester: Requester, signal?: AbortSignal): Promise<{ toolset: ToolsetRecord } & ToolDiff> {
    const found = await this.toolsets.findWithConnection(id);
    if (!found) throw new NotFoundError('Toolset', id);
    const { toolset: before, connection } = found;
    const listing = await this.listing.list(connectionSpecOf(connection, { transport: 'requested' }), requester, signal);
    // Writing the headers (env) again re-seals them under the current SECRETS_KEY (key rotation).
    const secrets = connection.kind === 'stdio' ? { env: connection.env } : { headers: connection.headers };
    const outcome = await this.toolsets.update(id, connection.revision, { listing, ...secrets, updatedBy: requester.keyId });
    const toolset = updatedOrThrow(id, outcome);
    const diff = diffTools(before.tools, toolset.tools);
    if (diff.added.length || diff.removed.length || diff.changed.length) await this.changes.record(id, 'refresh', diff);
    return { toolset, ...diff };
  }
}
