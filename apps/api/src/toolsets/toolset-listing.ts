import { Injectable } from '@nestjs/common';
import { isHttpTransport, listToolset } from '#mcp';
import { ToolsetTargets, type ConnectionSpec, type ToolsetListingInput } from '#workflow/nest';
import { connectionFailure } from './toolset-errors.js';

/** Connects to an MCP server, lists every tool (all pages), closes; failures become 422 errors. */
@Injectable()
export class ToolsetListing {
  constructor(private readonly targets: ToolsetTargets) {}

  async list(spec: ConnectionSpec, signal?: AbortSignal): Promise<ToolsetListingInput> {
    try {
      const listing = await listToolset(this.targets.targetFor(spec), { signal });
      return { serverInfo: listing.serverInfo, transport: isHttpTransport(listing.transport) ? listing.transport : 'streamable-http', tools: listing.tools };
    } catch (error) {
      throw connectionFailure(error, Object.values(spec.headers));
    }
  }
}

/** A toolset without a name takes the server's, else the URL's host. */
export function defaultToolsetName(url: string, listing: ToolsetListingInput): string {
  const serverName = listing.serverInfo.name.trim();
  return serverName && serverName !== 'unknown' ? serverName.slice(0, 200) : new URL(url).host;
}
