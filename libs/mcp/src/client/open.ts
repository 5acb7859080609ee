/**
 * Choosing and opening a transport and a protocol generation. Over HTTP, the stateless 2026-07-28
 * revision (SDK v2, `server/discover`) and the session revisions (SDK v1, `initialize`) are both
 * tried, the one the target remembers (`protocolVersion`) first, else the modern one. For the
 * session revisions `auto` tries Streamable HTTP, then legacy HTTP+SSE on a 4xx. A refused
 * credential (401/403), an unreachable server or a cancel ends the search at once; when every
 * attempt fails, the error lists each cause with its attempt. Transient network failures before
 * the handshake are retried with bounded backoff.
 */
import { isMcpError, McpError, McpErrorCode } from '../errors.js';
import type { ConnectAttempt, ConnectOptions, McpHttpTarget, McpTarget, ResolvedTransport } from '../types.js';
import { sleep } from './async-utils.js';
import { httpStatusOf, isAuthStatus, isTransientNetworkFailure } from './classify.js';
import { isModernProtocol, MODERN_PROTOCOL_VERSION, openModernSession } from './modern-session.js';
import { openSession, type Session, type SessionEvents } from './session.js';

/** How one session is opened: a session revision over a transport, or the stateless revision. */
export type SessionAttempt = ResolvedTransport | 'stateless';

export function attemptOf(session: Session): SessionAttempt {
  return session.stateless ? 'stateless' : session.kind;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const BACKOFF_MS = [100, 300, 900];

function connectDeadline(target: McpTarget): number {
  return Date.now() + (target.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
}

/** The deadline of a connect, started once the target's credentials are ready (not while they are renewed). */
export async function preparedDeadline(target: McpTarget): Promise<number> {
  if (target.kind !== 'stdio' && target.prepareCredentials) await target.prepareCredentials();
  return connectDeadline(target);
}

/**
 * The first session of a connection, the transport and generation resolved from the target. A
 * connect that failed after its fetch waited for the credentials' renewal (a 401 in the middle of
 * the handshake, the token renewed by another worker) is tried once more with a fresh deadline.
 */
export async function openResolved(target: McpTarget, options: ConnectOptions, events: SessionEvents): Promise<Session> {
  const deadline = await preparedDeadline(target);
  const renewalBefore = renewalMsOf(target);
  try {
    return await openResolvedWithin(target, options, events, deadline);
  } catch (error) {
    const waitedForRenewal = renewalMsOf(target) > renewalBefore;
    if (!waitedForRenewal || options.signal?.aborted || !isMcpError(error) || !RETRIED_AFTER_RENEWAL.has(error.code)) throw error;
    return openResolvedWithin(target, options, events, await preparedDeadline(target));
  }
}

const RETRIED_AFTER_RENEWAL = new Set<string>([McpErrorCode.UNREACHABLE, McpErrorCode.TIMEOUT]);

function renewalMsOf(target: McpTarget): number {
  return target.kind === 'stdio' ? 0 : (target.credentialRenewalMs?.() ?? 0);
}

async function openResolvedWithin(target: McpTarget, options: ConnectOptions, events: SessionEvents, deadline: number): Promise<Session> {
  if (target.kind === 'stdio') return openWithRetry(target, 'stdio', options, events, deadline);
  assertHttpUrl(target.url);
  const mode = target.transport ?? 'auto';
  if (mode === 'sse') return openWithRetry(target, 'sse', options, events, deadline);
  const stateless = () => openWithRetry(target, 'stateless', options, events, deadline);
  const sessions = () =>
    mode === 'auto' ? openSessionRevision(target, options, events, deadline) : openWithRetry(target, mode, options, events, deadline);
  const sessionsFirst = target.protocolVersion !== undefined && !isModernProtocol(target.protocolVersion);
  const order = sessionsFirst ? [sessions, stateless] : [stateless, sessions];
  const failures: unknown[] = [];
  for (const attempt of order) {
    try {
      return await attempt();
    } catch (error) {
      failures.push(error);
      if (endsTheSearch(error, options, deadline)) break;
    }
  }
  throw failures.length === 1
    ? failures[0]
    : everyAttemptFailed(failures, sessionsFirst ? ['sessions', 'stateless'] : ['stateless', 'sessions'], mode);
}

/** Streamable HTTP, then legacy HTTP+SSE when it answered 4xx (not 401/403). */
async function openSessionRevision(
  target: McpHttpTarget,
  options: ConnectOptions,
  events: SessionEvents,
  deadline: number,
): Promise<Session> {
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

/** A refused credential, an unreachable server, a cancel or a spent budget would fail every other attempt too. */
function endsTheSearch(error: unknown, options: ConnectOptions, deadline: number): boolean {
  if (options.signal?.aborted || Date.now() >= deadline) return true;
  if (!(error instanceof McpError)) return false;
  if (
    isAuthStatus(error.status) ||
    error.code === McpErrorCode.AUTH_FAILED ||
    error.code === McpErrorCode.AUTH_REQUIRED ||
    error.code === McpErrorCode.CANCELED
  )
    return true;
  return error.code === McpErrorCode.UNREACHABLE && error.status === undefined && error.causes === undefined;
}

export async function openWithRetry(
  target: McpTarget,
  kind: SessionAttempt,
  options: ConnectOptions,
  events: SessionEvents,
  deadline: number,
): Promise<Session> {
  for (let attempt = 0; ; attempt++) {
    try {
      if (kind !== 'stateless') return await openSession(target, kind, { ...options, deadline, events });
      if (target.kind === 'stdio') throw new McpError(McpErrorCode.PROTOCOL_ERROR, 'the stateless revision is only tried over HTTP');
      return await openModernSession(target, { ...options, deadline, events });
    } catch (error) {
      const delay = BACKOFF_MS[attempt];
      const cause = error instanceof McpError ? error.cause : error;
      if (delay === undefined || !isTransientNetworkFailure(cause) || Date.now() + delay >= deadline || options.signal?.aborted)
        throw error;
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
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new McpError(McpErrorCode.UNREACHABLE, `not an http(s) URL: ${JSON.stringify(url)}`);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function bothFailed(streamable: unknown, sse: unknown): McpError {
  const code = sse instanceof McpError ? sse.code : McpErrorCode.PROTOCOL_ERROR;
  const status = httpStatusOf(sse) ?? httpStatusOf(streamable);
  return new McpError(code, `neither transport worked — Streamable HTTP: ${messageOf(streamable)}; legacy SSE: ${messageOf(sse)}`, {
    causes: [streamable, sse],
    attempts: [{ transport: 'streamable-http' }, { transport: 'sse' }],
    ...(status === undefined ? {} : { status }),
  });
}

/** One error for the stateless attempt and the session ones; every cause keeps its attempt. */
function everyAttemptFailed(failures: unknown[], order: ('stateless' | 'sessions')[], mode: 'auto' | 'streamable-http'): McpError {
  const causes: unknown[] = [];
  const attempts: ConnectAttempt[] = [];
  const parts: string[] = [];
  failures.forEach((failure, index) => {
    if (order[index] === 'stateless') {
      causes.push(failure);
      attempts.push({ transport: 'streamable-http', protocolVersion: MODERN_PROTOCOL_VERSION });
      parts.push(`${MODERN_PROTOCOL_VERSION} (stateless): ${messageOf(failure)}`);
    } else if (failure instanceof McpError && failure.attempts && failure.causes) {
      causes.push(...failure.causes);
      attempts.push(...failure.attempts);
      parts.push(`session revisions: ${failure.message}`);
    } else {
      causes.push(failure);
      attempts.push({ transport: mode === 'auto' ? 'streamable-http' : mode });
      parts.push(`session revisions over Streamable HTTP: ${messageOf(failure)}`);
    }
  });
  const last = failures[failures.length - 1];
  const code = last instanceof McpError ? last.code : McpErrorCode.PROTOCOL_ERROR;
  const status = failures.map(httpStatusOf).findLast((value) => value !== undefined);
  return new McpError(code, `no MCP revision answered — ${parts.join('; ')}`, {
    causes,
    attempts,
    ...(status === undefined ? {} : { status }),
  });
}
