import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { FetchFunction, McpTarget, ResolvedTransport } from '../types.js';

/** A fresh SDK transport for one session; a transport (and its Client) is never reused. */
export function createTransport(target: McpTarget, kind: ResolvedTransport, fetchOverride?: FetchFunction): Transport {
  if (target.kind === 'stdio') {
    // stderr is piped (and drained by the session) so a chatty server does not flood our logs.
    return new StdioClientTransport({ command: target.command, args: target.args, env: target.env, cwd: target.cwd, stderr: 'pipe' });
  }
  const url = new URL(target.url);
  const requestInit = target.headers ? { headers: target.headers } : undefined;
  const fetchFn = fetchOverride ?? target.fetch;
  if (kind === 'sse') return new SSEClientTransport(url, { requestInit, fetch: fetchFn });
  return new StreamableHTTPClientTransport(url, { requestInit, fetch: fetchFn });
}

/** The Streamable HTTP session id, when the transport has one. */
export function httpSessionIdOf(transport: Transport): string | undefined {
  return transport instanceof StreamableHTTPClientTransport ? transport.sessionId : undefined;
}
