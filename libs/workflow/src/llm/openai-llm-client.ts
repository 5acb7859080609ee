import OpenAI from 'openai';
import { findOutboundBlock } from '#mcp';
import { EngineError } from '../engine/errors.js';
import { LLM_ERROR_CODES, type LlmClient } from '../nodes/llm/llm-client.js';
import { fromCompletion, toCreateParams } from './openai-messages.js';
import type { ProviderResolver } from './provider-resolver.js';

export interface OpenAiLlmClientOptions {
  providers: ProviderResolver;
  /** The SDK's retries of 408/409/429/5xx and connection errors (honouring `retry-after`); default 2. */
  maxRetries?: number;
  /** Bound on one model call, retries included, when the request names none; default 10 minutes. */
  timeoutMs?: number;
  /** The SSRF-safe outbound fetch of the host (provider URLs are user input). */
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 10 * 60_000;

function codeOf(error: unknown, call: CallSignals): string {
  if (call.caller.aborted) return LLM_ERROR_CODES.canceled;
  if (call.timedOut() || error instanceof OpenAI.APIConnectionTimeoutError) return LLM_ERROR_CODES.timeout;
  if (error instanceof OpenAI.APIUserAbortError) return LLM_ERROR_CODES.canceled;
  if (error instanceof OpenAI.APIConnectionError) return LLM_ERROR_CODES.unreachable;
  if (error instanceof OpenAI.APIError) {
    if (error.status === 401 || error.status === 403) return LLM_ERROR_CODES.authFailed;
    if (error.status === 429) return LLM_ERROR_CODES.rateLimited;
  }
  return LLM_ERROR_CODES.requestFailed;
}

/** A provider may echo the key in an error body; it never leaves here. */
function scrub(text: string, secret: string): string {
  return secret === '' ? text : text.split(secret).join('***');
}

function toLlmError(error: unknown, call: CallSignals, apiKey: string, timeoutMs: number): EngineError {
  const code = codeOf(error, call);
  if (code === LLM_ERROR_CODES.timeout) return new EngineError(code, `the model did not answer within ${timeoutMs} ms`);
  // The outbound policy's refusal, wrapped by the SDK as a connection error: report the refusal itself.
  const blocked = code === LLM_ERROR_CODES.unreachable ? findOutboundBlock(error) : undefined;
  if (blocked) return new EngineError(blocked.code, blocked.message);
  const status = error instanceof OpenAI.APIError && error.status !== undefined ? ` (HTTP ${error.status})` : '';
  const message = error instanceof Error ? error.message : String(error);
  return new EngineError(code, scrub(`model request failed${status}: ${message}`, apiKey));
}

interface CallSignals {
  /** The node's signal (run canceled, node timeout). */
  caller: AbortSignal;
  /** Aborted by the caller's signal or by the call's own time budget. */
  signal: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
}

/**
 * The call's budget is enforced here, around the SDK, rather than by the SDK's per-attempt
 * `timeout` alone: it bounds the whole call, retries and their waits included, and tells a
 * timeout from a cancellation by which signal fired (an abort the SDK sees is always "user").
 */
function callSignals(caller: AbortSignal, timeoutMs: number): CallSignals {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(caller.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`model call timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  if (caller.aborted) onAbort();
  else caller.addEventListener('abort', onAbort, { once: true });
  return {
    caller,
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}

/** The LlmClient port over the `openai` package: any OpenAI-compatible chat-completions endpoint. */
export function createOpenAiLlmClient(options: OpenAiLlmClientOptions): LlmClient {
  return {
    async chat(request) {
      const endpoint = await options.providers.resolve(request.providerId);
      if (!endpoint) throw new EngineError(LLM_ERROR_CODES.providerNotFound, `provider "${request.providerId}" does not exist`);
      const timeoutMs = request.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      // One client per call: cheap, and a key or URL changed through the API applies at once.
      const client = new OpenAI({
        baseURL: endpoint.baseURL,
        apiKey: endpoint.apiKey,
        maxRetries: options.maxRetries ?? 2,
        timeout: timeoutMs,
        fetch: options.fetch,
        // The SDK's own logging could print request headers; our node logs say what happened.
        logLevel: 'off',
      });
      const call = callSignals(request.signal, timeoutMs);
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create(toCreateParams(request), { signal: call.signal });
      } catch (error) {
        throw toLlmError(error, call, endpoint.apiKey, timeoutMs);
      } finally {
        call.dispose();
      }
      const response = fromCompletion(completion);
      if (!response) throw new EngineError(LLM_ERROR_CODES.requestFailed, 'the provider answered without any choice');
      return response;
    },
  };
}
