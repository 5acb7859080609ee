import { EngineError } from '../../engine/errors.js';
import type { EngineServices } from '../../engine/types.js';

/**
 * Port: one chat completion against an OpenAI-compatible provider. The `llm` and `agent` nodes
 * talk only to this; the host supplies an implementation (openai-backed in `llm/`) under
 * `services.extras[LLM_CLIENT_EXTRA]`, which resolves `providerId` to a base URL and key.
 */
export interface LlmToolCall {
  id: string;
  name: string;
  /** The arguments exactly as the model wrote them (JSON text, possibly malformed). */
  arguments: string;
}

export type LlmMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: LlmToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

/** A function tool offered to the model; `parameters` is a JSON Schema object. */
export interface LlmFunctionTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface LlmChatRequest {
  providerId: string;
  model: string;
  messages: LlmMessage[];
  tools?: LlmFunctionTool[];
  temperature?: number;
  maxTokens?: number;
  /** Structured output: the provider is asked for JSON matching this schema. */
  responseSchema?: Record<string, unknown>;
  /** Aborts the request, including the SDK's waits between retries. */
  signal: AbortSignal;
  /** Bound on the whole call, the SDK's retries included. */
  timeoutMs?: number;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmChatResponse {
  /** The model the provider says answered (may be more specific than the one asked for). */
  model: string;
  text: string | null;
  toolCalls: LlmToolCall[];
  usage: LlmUsage;
  finishReason?: string;
}

export interface LlmClient {
  /** Throws an EngineError with an `LLM_*` code (see LLM_ERROR_CODES). */
  chat(request: LlmChatRequest): Promise<LlmChatResponse>;
}

export const LLM_CLIENT_EXTRA = 'llm';

export const LLM_ERROR_CODES = {
  notConfigured: 'LLM_NOT_CONFIGURED',
  providerNotFound: 'LLM_PROVIDER_NOT_FOUND',
  authFailed: 'LLM_AUTH_FAILED',
  rateLimited: 'LLM_RATE_LIMITED',
  timeout: 'LLM_TIMEOUT',
  unreachable: 'LLM_UNREACHABLE',
  canceled: 'LLM_CANCELED',
  requestFailed: 'LLM_REQUEST_FAILED',
  /** The reply is not JSON, or not JSON matching the node's `responseSchema`. */
  responseInvalid: 'LLM_RESPONSE_INVALID',
  agentMaxIterations: 'AGENT_MAX_ITERATIONS',
} as const;

export const ZERO_USAGE: LlmUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

function isLlmClient(value: unknown): value is LlmClient {
  return typeof value === 'object' && value !== null && typeof (value as { chat?: unknown }).chat === 'function';
}

export function llmClientOf(services: EngineServices): LlmClient {
  const client = services.extras?.[LLM_CLIENT_EXTRA];
  if (!isLlmClient(client)) {
    throw new EngineError(LLM_ERROR_CODES.notConfigured, `this host has no LLM client (services.extras.${LLM_CLIENT_EXTRA})`);
  }
  return client;
}
