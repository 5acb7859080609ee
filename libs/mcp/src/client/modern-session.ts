/**
 * A session on the stateless 2026-07-28 revision, spoken by SDK v2 (`@modelcontextprotocol/client`).
 * There is nothing to open or close on the server: `server/discover` tells us it speaks the
 * revision, and its answer is remembered per server and credentials (see discovery-cache.ts), so a
 * run's pool connects with zero round trips. close() sends no DELETE: there is no session id.
 */
import { Client, StreamableHTTPClientTransport, type ElicitResult } from '@modelcontextprotocol/client';
import type { FetchFunction, McpHttpTarget } from '../types.js';
import { abortable } from './async-utils.js';
import { httpStatusOf, toMcpError } from './classify.js';
import { McpError, McpErrorCode } from '../errors.js';
import { serverWordsOf } from './server-words.js';
import { elicitationHandler } from './elicitation-scope.js';
import { forgetDiscovery, recallDiscovery, rememberDiscovery } from './discovery-cache.js';
import type { OpenSessionOptions, Session } from './session.js';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
const DEFAULT_CLIENT_INFO = { name: 'mcpflow', version: '0.1.0' };

export function isModernProtocol(version: string | undefined): boolean {
  return version !== undefined && version >= MODERN_PROTOCOL_VERSION;
}

export async function openModernSession(target: McpHttpTarget, options: OpenSessionOptions): Promise<Session> {
  const probe = watchedFetch(options.fetch ?? target.fetch ?? globalThis.fetch);
  const transport = new StreamableHTTPClientTransport(new URL(target.url), {
    ...(target.headers ? { requestInit: { headers: target.headers } } : {}),
    fetch: probe.fetch,
  });
  const client = new Client(options.clientInfo ?? DEFAULT_CLIENT_INFO, {
    capabilities: options.onElicitation ? { elicitation: { form: {} } } : {},
    versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } },
  });
  const onElicitation = options.onElicitation && elicitationHandler(options.onElicitation);
  if (onElicitation) {
    // The SDK answers an `input_required` result's elicitations through this handler, then retries the call.
    client.setRequestHandler(
      'elicitation/create',
      ({ params }) =>
        onElicitation({
          message: params.message,
          requestedSchema: 'requestedSchema' in params ? params.requestedSchema : {},
        }) as Promise<ElicitResult>,
    );
  }
  let closing: Promise<void> | undefined;
  let established = false;
  const close = () => (closing ??= client.close().catch(() => undefined));
  transport.onerror = (error) => {
    if (established && closing === undefined) options.events.onError(error);
  };

  const prior = recallDiscovery(target);
  const timeoutMs = Math.max(1, options.deadline - Date.now());
  const stop = new AbortController();
  const timer = setTimeout(
    () => stop.abort(new McpError(McpErrorCode.UNREACHABLE, `no MCP handshake within ${timeoutMs} ms (server/discover)`)),
    timeoutMs,
  );
  const onCancel = () => stop.abort(new McpError(McpErrorCode.CANCELED, 'connecting was canceled'));
  options.signal?.addEventListener('abort', onCancel, { once: true });
  if (options.signal?.aborted) onCancel();
  try {
    const connecting = client.connect(transport, {
      signal: stop.signal,
      timeout: timeoutMs,
      ...(prior ? { prior: { kind: 'modern', discover: prior } } : {}),
    });
    connecting.catch(() => undefined);
    await abortable(connecting, stop.signal);
  } catch (error) {
    await close();
    forgetDiscovery(target);
    if (stop.signal.aborted) throw stop.signal.reason;
    throw toMcpError(await probe.explain(error), `connect (${MODERN_PROTOCOL_VERSION}) failed`);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
    probe.stopWatching();
  }
  established = true;
  const discover = client.getDiscoverResult();
  if (discover && !prior) rememberDiscovery(target, discover);
  const server = client.getServerVersion();
  return {
    client: {
      request: (request, schema, requestOptions) =>
        client.request(request as never, schema, requestOptions).catch((error: unknown) => {
          // A server that stopped speaking this revision answers 4xx: ask it again next time.
          const status = httpStatusOf(error);
          if (status !== undefined && status >= 400 && status < 500) forgetDiscovery(target);
          throw error;
        }),
      ping: () => Promise.resolve(),
    },
    kind: 'streamable-http',
    serverInfo: {
      name: server?.name ?? 'unknown',
      version: server?.version ?? 'unknown',
      protocolVersion: client.getNegotiatedProtocolVersion() ?? MODERN_PROTOCOL_VERSION,
    },
    stateless: true,
    lost: false,
    inFlight: new Set(),
    hasSessionId: () => false,
    close,
  };
}

/**
 * The SDK's pin mode reports every failed probe as "version negotiation failed", hiding a refused
 * connection or the HTTP status; both decide what we do next (retry, report auth, fall back), so
 * the connect's own requests are watched and the failure explained with what they met.
 */
function watchedFetch(base: FetchFunction) {
  let watching = true;
  let status: number | undefined;
  let body: Promise<string> = Promise.resolve('');
  let failure: unknown;
  const fetch: FetchFunction = async (input, init) => {
    try {
      const response = await base(input, init);
      if (watching && !response.ok) {
        status = response.status;
        // The server's own words (e.g. why a credential was refused), as the session path reports them.
        body = response
          .clone()
          .text()
          .then((text) => serverWordsOf(text) ?? '')
          .catch(() => '');
      }
      return response;
    } catch (error) {
      if (watching) failure = error;
      throw error;
    }
  };
  return {
    fetch,
    stopWatching: () => {
      watching = false;
    },
    async explain(error: unknown): Promise<unknown> {
      if (failure !== undefined) return failure;
      if (status === undefined) return error;
      const said = await body;
      return new Error(`server/discover was refused (HTTP ${status})${said ? `: ${said}` : ''}`, { cause: error });
    },
  };
}
