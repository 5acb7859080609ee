/**
 * Choosing and opening a transport: `auto` tries Streamable HTTP, falls back to legacy HTTP+SSE
 * on a 4xx (not on 401/403: a refused credential fails on either), and reports both causes when
 * both fail. Transient network failures before the handshake are retried with bounded backoff.
 */
import { McpError, McpErrorCode } from '../errors.js';
import type { ConnectOptions, McpTarget, ResolvedTransport } from '../types.js';
import { sleep } from './async-utils.js';
import { httpStatusOf, isAuthStatus, isTransientNetworkFailure } from './classify.js';
import { openSession, type Session, type SessionEvents } from './session.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const BACKOFF_MS = [100, 300, 900];

export function connectDeadline(target: McpTarget): number {
  return Date.now() + (target.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
}

/** The first session of a connection, the transport resolved from the target's mode. */
export async function openResolved(target: McpTarget, options: ConnectOptions, events: SessionEvents): Promise<Session> {
  const deadline = connectDeadline(target);
  if (target.kind === 'stdio') return openWithRetry(target, 'stdio', options, events, deadline);
  assertHttpUrl(target.url);
  const mode = target.transport ?? 'auto';
  if (mode !== 'auto') return openWithRetry(target, mode, options, events, deadline);
  try {
    return await openWithRetry(target, 'streamable-http', options, events, deadline);
  } catch (streamable) {
    const status = httpStatusOf(streamable);
    if (status === undefined || status < 400 || status > 499 || isAuthStatus(status)) throw streamable;
    try {
      return await openWithRetry(target, 'sse', options, events, deadline);
    } catch (sse) {
      throw bothFailed(streamable, sse);
    }
  }
}

export async function openWithRetry(target: McpTarget, kind: ResolvedTransport, options: ConnectOptions, events: SessionEvents, deadline: number): Promise<Session> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openSession(target, kind, { ...options, deadline, events });
    } catch (error) {
      const delay = BACKOFF_MS[attempt];
      const cause = error instanceof McpError ? error.cause : error;
      if (delay === undefined || !isTransientNetworkFailure(cause) || Date.now() + delay >= deadline || options.signal?.aborted) throw error;
      await sleep(delay);
    }
  }
}

function assertHttpUrl(url: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new McpError(McpErrorCode.UNREACHABLE, `not an http(s) URL: ${JSON.stringify(url)}`);
}

function bothFailed(streamable: unknown, sse: unknown): McpError {
  const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const code = sse instanceof McpError ? sse.code : McpErrorCode.PROTOCOL_ERROR;
  const status = httpStatusOf(sse) ?? httpStatusOf(streamable);
  return new McpError(code, `neither transport worked — Streamable HTTP: ${message(streamable)}; legacy SSE: ${message(sse)}`, {
    causes: [streamable, sse],
    ...(status === undefined ? {} : { status }),
  });
}
