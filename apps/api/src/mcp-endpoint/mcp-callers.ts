import { Injectable } from '@nestjs/common';
import { ApiKeyAuthenticator, type Principal } from '../api-keys/api-key-authenticator.js';
import { RateLimits } from '../api-keys/rate-limits.js';
import { grants, isAdmin } from '../api-keys/scopes.js';

/** Who calls a published MCP server. */
export interface McpCaller {
  /** The API key's id (the runs' `triggeredBy`). */
  keyId: string;
  /** Workflows the key is limited to: only their tools exist for it. null = every tool of the server. */
  workflows: readonly string[] | null;
}

export type CallerCheck =
  { ok: true; caller: McpCaller } | { ok: false; status: 401 | 403 | 429; message: string; headers: Record<string, string> };

const REALM = 'Bearer realm="mcpflow"';

function refused(status: 401 | 403 | 429, message: string, headers: Record<string, string>): CallerCheck {
  return { ok: false, status, message, headers };
}

function tooMany(retryAfter: number, message: string): CallerCheck {
  return refused(429, message, { 'Retry-After': String(retryAfter) });
}

/** The server ids a principal may call: all for `admin`, the key's list (or all) for `mcp`, none otherwise. */
export function mayCall(principal: Pick<Principal, 'scopes' | 'mcpServers'>, serverId: string): boolean {
  if (isAdmin(principal.scopes)) return true;
  if (!grants(principal.scopes, ['mcp'])) return false;
  return principal.mcpServers === null || principal.mcpServers.includes(serverId);
}

/**
 * The one place that decides who may call a published server, before any MCP processing, in the
 * REST guard's order: failed-auth block of the address → key (the same keys, ApiKeyAuthenticator,
 * no cache: a revoked key fails its next request) → the key's rate → scope and server list. The
 * routes are `@Public()` to the REST guard, whose answers are not JSON-RPC shaped; the limits are
 * the same Redis-shared counters (RateLimits), so REST and MCP requests of a key add up.
 * 401 and 403 carry `WWW-Authenticate` as RFC 6750 says (`invalid_token`, `insufficient_scope`).
 */
@Injectable()
export class McpCallers {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly limits: RateLimits,
  ) {}

  /**
   * As the REST guard: a valid key passes a block of its address (the block stops guessing), and
   * `preflight` (a CORS OPTIONS without a key) is not counted as a failure.
   */
  async check(token: string | undefined, serverId: string, ip: string, preflight = false): Promise<CallerCheck> {
    const principal = token ? await this.authenticator.authenticate(token) : undefined;
    if (!principal) {
      const blocked = await this.limits.failureBlock(ip);
      if (blocked) return tooMany(blocked, 'Too many failed authentications from this address');
      const retryAfter = preflight && token === undefined ? undefined : await this.limits.recordFailure(ip);
      if (retryAfter) return tooMany(retryAfter, 'Too many failed authentications from this address');
      return refused(401, 'A valid API key is required (Authorization: Bearer <key>)', {
        'WWW-Authenticate': token ? `${REALM}, error="invalid_token"` : REALM,
      });
    }
    const retryAfter = await this.limits.consumeKey(principal.keyId);
    if (retryAfter) return tooMany(retryAfter, 'Too many requests for this API key');
    if (!mayCall(principal, serverId)) {
      const message = grants(principal.scopes, ['mcp'])
        ? `This API key may not call MCP server ${serverId} (it is limited to other servers)`
        : 'This API key lacks the scope "mcp" (or "admin")';
      return refused(403, message, { 'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="mcp"` });
    }
    return { ok: true, caller: { keyId: principal.keyId, workflows: principal.workflows } };
  }
}
