import type { TargetKind } from '#mcp';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { isAdmin } from '../api-keys/scopes.js';
import { ApiError } from '../common/api-errors.js';

/** Who asks a toolset use case to act: the key's id (`createdBy`, `updatedBy`) and whether it holds `admin`. */
export interface Requester {
  keyId: string;
  admin: boolean;
}

export function requesterOf(principal: Principal): Requester {
  return { keyId: principal.keyId, admin: isAdmin(principal.scopes) };
}

/**
 * A local (stdio) server is a process the API starts as its own user, on its own machine: only
 * an `admin` key decides that. Creating, previewing, importing, changing, refreshing, checking or
 * calling a stdio toolset is refused to other keys (403 `STDIO_ADMIN_REQUIRED`) before anything
 * is started — and before the operator's allow-list is consulted, so such a key cannot probe it.
 * `path`: where the refusal points in a body (a create body's `/command`); none for a stored toolset.
 */
export function refuseStdioUnlessAdmin(kind: TargetKind | undefined, requester: Requester, path?: string): void {
  if (kind !== 'stdio' || requester.admin) return;
  const message = 'Only an admin key may start a local (stdio) MCP server';
  throw new ApiError('STDIO_ADMIN_REQUIRED', message, path === undefined ? undefined : [{ path, code: 'STDIO_ADMIN_REQUIRED', message }]);
}
