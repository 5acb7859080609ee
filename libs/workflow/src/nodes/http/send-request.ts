import { EngineError } from '../../engine/errors.js';
import type { Clock } from '../../engine/types.js';
import { HTTP_ERROR_CODES, type HttpFetch } from './http-port.js';

export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxResponseBytes: number;
  retries: number;
  backoffMs: number;
  /** Masks secret values a server may echo in its answer. */
  scrub(text: string): string;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  attempts: number;
}

/** Methods that may be sent again after a 5xx or a dropped connection; a 429 was not processed, so any method is retried. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const MAX_RETRY_AFTER_MS = 60_000;

/** `Retry-After` as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : undefined;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(maxBytes: number): EngineError {
  return new EngineError(HTTP_ERROR_CODES.tooLarge, `the response body is larger than ${maxBytes} bytes`);
}

function parseBody(text: string, contentType: string | null): unknown {
  if (!/json/i.test(contentType ?? '') && !/^\s*[[{]/.test(text)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One try: the answer, or a thrown error marked retryable when a later try may succeed. */
async function attempt(fetch: HttpFetch, request: OutgoingRequest, signal: AbortSignal): Promise<Response> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  try {
    return await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.any([signal, timeout]),
      redirect: 'follow',
    });
  } catch (thrown) {
    signal.throwIfAborted();
    if ((thrown as { code?: unknown }).code === 'OUTBOUND_BLOCKED') throw thrown;
    if (timeout.aborted) throw new EngineError(HTTP_ERROR_CODES.timeout, `no answer within ${request.timeoutMs} ms`);
    const cause = thrown instanceof Error ? (thrown.cause instanceof Error ? thrown.cause.message : thrown.message) : String(thrown);
    throw new EngineError(HTTP_ERROR_CODES.unreachable, `the request failed: ${cause}`);
  }
}

/**
 * Sends the request, retrying 429 (any method), 5xx and network failures (idempotent methods)
 * with exponential backoff, or after `Retry-After` when the server names a time.
 */
export async function sendRequest(fetch: HttpFetch, request: OutgoingRequest, clock: Clock, signal: AbortSignal): Promise<HttpAnswer> {
  for (let attempts = 1; ; attempts += 1) {
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await attempt(fetch, request, signal);
    } catch (thrown) {
      failure = thrown;
    }
    const retryable = response
      ? response.status === 429 || (response.status >= 500 && IDEMPOTENT.has(request.method))
      : failure instanceof EngineError && failure.code === HTTP_ERROR_CODES.unreachable && IDEMPOTENT.has(request.method);
    if (retryable && attempts <= request.retries) {
      const wait = retryAfterMs(response?.headers.get('retry-after') ?? null, clock.now()) ?? request.backoffMs * 2 ** (attempts - 1);
      await response?.body?.cancel();
      await clock.sleep(wait, signal);
      continue;
    }
    if (!response) throw failure;
    const text = request.scrub(await readCapped(response, request.maxResponseBytes));
    // A server may echo a credential in a header as well as in the body.
    const headers = Object.fromEntries([...response.headers.entries()].map(([name, value]) => [name, request.scrub(value)]));
    return { status: response.status, headers, body: parseBody(text, response.headers.get('content-type')), attempts };
  }
}
