import { Injectable } from '@nestjs/common';
import { listToolset, type FetchFunction, type McpTarget, type TargetKind } from '#mcp';
import { StdioRefusedError, ToolsetTargets, connectionSecrets, type ConnectionSpec, type ToolsetListingInput } from '#workflow/nest';
import { ApiError } from '../common/api-errors.js';
import { connectionFailure } from './toolset-errors.js';
import { refuseStdioUnlessAdmin, type Requester } from './requester.js';

/** Where a connection problem points in a create body: the URL, or the command of a local server. */
export function connectionPath(spec: { kind?: TargetKind }): string {
  return spec.kind === 'stdio' ? '/command' : '/url';
}

/**
 * The MCP target of a spec; a stdio command is a 403 before any process is started when the key
 * is not `admin` (`STDIO_ADMIN_REQUIRED`) or the operator does not allow it (`STDIO_DISABLED`,
 * `STDIO_COMMAND_NOT_ALLOWED`). `path`: where a refusal points in the body (none for a stored toolset).
 */
export function targetOrRefusal(targets: ToolsetTargets, spec: ConnectionSpec, requester: Requester, path?: string): McpTarget {
  refuseStdioUnlessAdmin(spec.kind, requester, path);
  try {
    return targets.targetFor(spec);
  } catch (error) {
    if (error instanceof StdioRefusedError)
      throw new ApiError(error.code, error.message, path === undefined ? undefined : [{ path, code: error.code, message: error.message }]);
    throw error;
  }
}

/** Connects to an MCP server, lists every tool (all pages), closes; failures become 4xx errors. */
@Injectable()
export class ToolsetListing {
  constructor(private readonly targets: ToolsetTargets) {}

  /** `fetch`: instead of the target's (an OAuth grant not stored yet). */
  async list(spec: ConnectionSpec, requester: Requester, signal?: AbortSignal, fetch?: FetchFunction): Promise<ToolsetListingInput> {
    const resolved = targetOrRefusal(this.targets, spec, requester, connectionPath(spec));
    const target = fetch && resolved.kind !== 'stdio' ? { ...resolved, fetch } : resolved;
    try {
      const listing = await listToolset(target, { signal });
      return { serverInfo: listing.serverInfo, transport: listing.transport, tools: listing.tools };
    } catch (error) {
      throw connectionFailure(error, connectionSecrets(spec), connectionPath(spec));
    }
  }
}

/** A toolset without a name takes the server's, else the URL's host (the command's last path segment for stdio). */
export function defaultToolsetName(spec: ConnectionSpec, listing: ToolsetListingInput): string {
  const serverName = listing.serverInfo.name.trim();
  if (serverName && serverName !== 'unknown') return serverName.slice(0, 200);
  return spec.kind === 'stdio' ? (spec.command.split('/').pop() ?? spec.command).slice(0, 200) : new URL(spec.url).host;
}
