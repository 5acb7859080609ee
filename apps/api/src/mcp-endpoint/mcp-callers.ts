import { Injectable } from '@nestjs/common';
import { ApiKeyAuthenticator } from '../api-keys/api-key-authenticator.js';
import { bearerToken } from '../api-keys/api-key-token.js';
import { grants } from '../api-keys/scopes.js';

/** Who calls a published MCP server. */
export interface McpCaller {
  /** The API key's id (the runs' `triggeredBy`). */
  keyId: string | null;
}

export type CallerCheck = { ok: true; caller: McpCaller } | { ok: false; status: 401 | 403; message: string };

/**
 * The one place that decides who may call a published server, before any MCP processing: a
 * bearer API key (the same keys as the REST API, checked by ApiKeyAuthenticator) holding the `mcp`
 * scope, or `admin`. The route itself is `@Public()` to the REST guard, whose answers are not
 * JSON-RPC shaped.
 */
@Injectable()
export class McpCallers {
  constructor(private readonly authenticator: ApiKeyAuthenticator) {}

  async check(authorization: string | undefined, _serverId: string): Promise<CallerCheck> {
    const token = bearerToken(authorization);
    const principal = token ? await this.authenticator.authenticate(token) : undefined;
    if (!principal) return { ok: false, status: 401, message: 'A valid API key is required (Authorization: Bearer <key>)' };
    if (!grants(principal.scopes, ['mcp'])) return { ok: false, status: 403, message: 'This API key lacks the scope "mcp" (or "admin")' };
    return { ok: true, caller: { keyId: principal.keyId } };
  }
}
