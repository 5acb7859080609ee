/**
 * Maps what the SDK, fetch and child processes throw to McpError codes, and answers the one
 * question recovery depends on: did this request certainly not reach a live session?
 */
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError as SdkMcpError } from '@modelcontextprotocol/sdk/types.js';
import { SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError as ModernUnauthorizedError } from '@modelcontextprotocol/client';
import { McpError, McpErrorCode } from '../errors.js';
import { serverWordsOf } from './server-words.js';

/** Network failures worth another connect attempt (the peer may be starting or restarting). */
const TRANSIENT_NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
/** SDK v2's ways of saying that nothing reached a server. */
const MODERN_UNREACHABLE = new Set<SdkErrorCode>([SdkErrorCode.ConnectionClosed, SdkErrorCode.NotConnected, SdkErrorCode.SendFailed]);
const GATEWAY_STATUSES = new Set([502, 503, 504]);

interface ErrorLike {
  message: string;
  code?: unknown;
  cause?: unknown;
}

/** Duck-typed: errors thrown by Node internals (fetch) may come from another realm (Jest's VM). */
function errorLike(value: unknown): ErrorLike | undefined {
  return typeof value === 'object' && value !== null && typeof (value as ErrorLike).message === 'string' ? (value as ErrorLike) : undefined;
}

export function httpStatusOf(error: unknown): number | undefined {
  if (error instanceof McpError) return error.status;
  if (error instanceof SdkHttpError && typeof error.status === 'number') return error.status;
  if ((error instanceof StreamableHTTPError || error instanceof SseError) && typeof error.code === 'number' && error.code > 0)
    return error.code;
  // The SSE transport's POST failures are plain Errors: "Error POSTing to endpoint (HTTP 404): …".
  const match = /\(HTTP (\d{3})\)/.exec(errorLike(error)?.message ?? '');
  return match ? Number(match[1]) : undefined;
}

/** The errno-style code (`ECONNREFUSED`, `ENOENT`…) somewhere in the cause chain. */
export function networkCodeOf(error: unknown): string | undefined {
  for (let current = errorLike(error), depth = 0; current && depth < 5; current = errorLike(current.cause), depth++) {
    // SDK v2 errors carry string codes of their own (`ERA_NEGOTIATION_FAILED`…): not network codes.
    if (typeof current.code === 'string' && !(current instanceof SdkError)) return current.code;
  }
  return undefined;
}

export function isTransientNetworkFailure(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined) return GATEWAY_STATUSES.has(status);
  const code = networkCodeOf(error);
  return code !== undefined && TRANSIENT_NETWORK_CODES.has(code);
}

/**
 * True when the request cannot have been processed: the session is gone (404, or 400 on a
 * session id the server no longer knows), the TCP connection was refused, or the SDK had no
 * transport to send on. Only such requests may be sent again.
 */
export function wasNotDelivered(error: unknown, hadSessionId: boolean): boolean {
  const status = httpStatusOf(error);
  if (status === 404 || (status === 400 && hadSessionId)) return true;
  if (networkCodeOf(error) === 'ECONNREFUSED') return true;
  return errorLike(error)?.message === 'Not connected';
}

export function isAuthStatus(status: number | undefined): boolean {
  return status === 401 || status === 403;
}

export function toMcpError(error: unknown, context: string): McpError {
  if (error instanceof McpError) return error;
  const status = httpStatusOf(error);
  const detail = describe(error);
  const details = { cause: error, ...(status === undefined ? {} : { status }) };
  if (isAuthStatus(status) || error instanceof UnauthorizedError || error instanceof ModernUnauthorizedError) {
    return new McpError(McpErrorCode.AUTH_FAILED, `${context}: authentication refused (${detail})`, details);
  }
  if (status !== undefined) {
    const code = GATEWAY_STATUSES.has(status) ? McpErrorCode.UNREACHABLE : McpErrorCode.PROTOCOL_ERROR;
    // The status, and the body only when it is a JSON-RPC error (see serverWordsOf).
    const words = serverWordsOf(detail);
    return new McpError(code, `${context}: HTTP ${status}${words ? ` (${words})` : ''}`, details);
  }
  if (isUnreachable(error)) return new McpError(McpErrorCode.UNREACHABLE, `${context}: ${detail}`, details);
  if (
    (error instanceof SdkMcpError && error.code === ErrorCode.RequestTimeout) ||
    (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
  ) {
    return new McpError(McpErrorCode.TIMEOUT, `${context}: ${detail}`, details);
  }
  return new McpError(McpErrorCode.PROTOCOL_ERROR, `${context}: ${detail}`, details);
}

function isUnreachable(error: unknown): boolean {
  if (networkCodeOf(error) !== undefined) return true;
  if (error instanceof SseError) return true; // no HTTP status: the event stream never opened
  if (error instanceof SdkMcpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof SdkError) return MODERN_UNREACHABLE.has(error.code);
  const message = errorLike(error)?.message;
  return message === 'Not connected' || message === 'fetch failed';
}

function describe(error: unknown): string {
  const message = errorLike(error)?.message ?? String(error);
  const code = networkCodeOf(error);
  return code && !message.includes(code) ? `${message} (${code})` : message;
}
