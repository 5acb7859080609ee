/**
 * Ends a Streamable HTTP session that no live client holds — one a killed process left open —
 * with the spec's `DELETE` carrying its `Mcp-Session-Id`, the target's headers (the server may
 * require its credentials for it) and through the target's fetch (the SSRF-safe one).
 * No MCP-Protocol-Version header: the negotiated version is not known here, and a server without
 * it assumes 2025-03-26 — which any version of its sessions accepts for DELETE.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, McpErrorCode } from '../errors.js';
import type { FetchFunction, McpHttpTarget } from '../types.js';
import { toMcpError } from './classify.js';

const DEFAULT_TERMINATE_TIMEOUT_MS = 3_000;
const WHAT = 'terminating the MCP session';

/**
 * `terminated`: the server ended it (2xx). `gone`: it did not know the session (404: expired,
 * restarted, or ended already). `not-allowed`: 405, the server does not let clients end sessions
 * (only its own expiry will). None of them is worth another attempt.
 */
export type SessionTermination = 'terminated' | 'gone' | 'not-allowed';

export interface TerminateSessionOptions {
  /** Overrides the target's fetch. */
  fetch?: FetchFunction;
  /** Default 3 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Rejects with an McpError (status when there was one) on any other answer or a network failure. */
export async function terminateSession(
  target: McpHttpTarget,
  sessionId: string,
  options: TerminateSessionOptions = {},
): Promise<SessionTermination> {
  const headers = new Headers(target.headers);
  headers.set('mcp-session-id', sessionId);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TERMINATE_TIMEOUT_MS;
  const expiry = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, expiry]) : expiry;
  const send = options.fetch ?? target.fetch ?? fetch;
  let response: Response;
  try {
    response = await send(target.url, { method: 'DELETE', headers, signal });
  } catch (error) {
    if (options.signal?.aborted) throw new McpError(McpErrorCode.CANCELED, `${WHAT}: canceled`, { cause: error });
    if (expiry.aborted) throw new McpError(McpErrorCode.TIMEOUT, `${WHAT}: no answer within ${timeoutMs} ms`, { cause: error });
    throw toMcpError(error, WHAT);
  }
  if (response.ok || response.status === 404 || response.status === 405) {
    await response.body?.cancel().catch(() => undefined);
    return response.ok ? 'terminated' : response.status === 404 ? 'gone' : 'not-allowed';
  }
  const text = await response.text().catch(() => '');
  throw toMcpError(new StreamableHTTPError(response.status, text.slice(0, 200) || response.statusText), WHAT);
}
