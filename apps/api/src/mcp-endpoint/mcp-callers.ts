import { Injectable } from '@nestjs/common';

/** Who calls a published MCP server. */
export interface McpCaller {
  /** The API key's id; null while the API has no keys. */
  keyId: string | null;
}

export type CallerCheck = { ok: true; caller: McpCaller } | { ok: false; status: 401 | 403; message: string };

/**
 * The one place that decides who may call a published server, before any MCP processing. The
 * API has no keys yet, so every caller is admitted anonymously; with API keys this becomes a
 * bearer-token check (`mcp` scope for this server, or `admin`).
 */
@Injectable()
export class McpCallers {
  check(_authorization: string | undefined, _serverId: string): Promise<CallerCheck> {
    return Promise.resolve({ ok: true, caller: { keyId: null } });
  }
}
