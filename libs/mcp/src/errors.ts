/**
 * Errors of libs/mcp are values with a code, so callers (the REST API, the run engine) map them
 * to HTTP statuses and node outcomes without parsing messages.
 */
import type { ConnectAttempt, PendingInput } from './types.js';

export const McpErrorCode = {
  UNREACHABLE: 'MCP_UNREACHABLE',
  AUTH_FAILED: 'MCP_AUTH_FAILED',
  /** An OAuth toolset has no usable grant (never authorized, refresh refused, larger scope asked): a person must authorize it. */
  AUTH_REQUIRED: 'MCP_AUTH_REQUIRED',
  PROTOCOL_ERROR: 'MCP_PROTOCOL_ERROR',
  TIMEOUT: 'MCP_TIMEOUT',
  CANCELED: 'MCP_CANCELED',
  TOOL_ERROR: 'MCP_TOOL_ERROR',
  INPUT_INVALID: 'MCP_INPUT_INVALID',
  /** The tool asked for input and the caller's answerer deferred it: `pendingInput` says what and how to resume. */
  INPUT_REQUIRED: 'MCP_INPUT_REQUIRED',
} as const;

export type McpErrorCode = (typeof McpErrorCode)[keyof typeof McpErrorCode];

/** One problem found in tool arguments; `path` is dotted (`items[0].name`), '' for the root. */
export interface ArgumentError {
  path: string;
  message: string;
}

export interface McpErrorDetails {
  cause?: unknown;
  /** Every cause when several attempts failed (auto transport: Streamable HTTP, then SSE). */
  causes?: unknown[];
  /** What each of `causes` tried (transport, and the revision when it was the stateless one). */
  attempts?: ConnectAttempt[];
  /** HTTP status of the response that caused the error, when there was one. */
  status?: number;
  /** MCP_INPUT_INVALID: every argument problem. */
  errors?: ArgumentError[];
  /** MCP_INPUT_REQUIRED: the request left unanswered. */
  pendingInput?: PendingInput;
}

export class McpError extends Error {
  override readonly name = 'McpError';
  readonly causes?: unknown[];
  readonly attempts?: ConnectAttempt[];
  readonly status?: number;
  readonly errors?: ArgumentError[];
  readonly pendingInput?: PendingInput;

  constructor(
    readonly code: McpErrorCode,
    message: string,
    details: McpErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    if (details.causes) this.causes = details.causes;
    if (details.attempts) this.attempts = details.attempts;
    if (details.status !== undefined) this.status = details.status;
    if (details.errors) this.errors = details.errors;
    if (details.pendingInput) this.pendingInput = details.pendingInput;
  }
}

export function isMcpError(error: unknown, code?: McpErrorCode): error is McpError {
  return error instanceof McpError && (code === undefined || error.code === code);
}
