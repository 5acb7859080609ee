import type { McpErrorCode } from '#mcp';

/**
 * Every `code` the API answers with, and its HTTP status: the one place both are written.
 * `ApiError` only takes these codes, so a new code without a status does not compile.
 */
export const HTTP_STATUS_BY_CODE = {
  VALIDATION_FAILED: 400,
  WORKFLOW_INVALID: 400,
  UNAUTHENTICATED: 401,
  // Inbound webhooks (POST /hooks/:id): the delivery does not prove its sender.
  HOOK_SIGNATURE_MISSING: 401,
  HOOK_SIGNATURE_INVALID: 401,
  HOOK_TIMESTAMP_EXPIRED: 401,
  HOOK_BODY_INVALID: 400,
  FORBIDDEN: 403,
  STDIO_DISABLED: 403,
  STDIO_COMMAND_NOT_ALLOWED: 403,
  STDIO_ADMIN_REQUIRED: 403,
  NOT_FOUND: 404,
  PROVIDER_IN_USE: 409,
  TOOLSET_IN_USE: 409,
  TOOLSET_CHANGED: 409,
  WORKFLOW_PUBLISHED: 409,
  RUN_FINISHED: 409,
  RUN_NOT_FINISHED: 409,
  RUN_NOT_WAITING: 409,
  // POST /runs/:id/replay: the earlier run never got to the node (or to a node upstream of it).
  NODE_NOT_REACHED: 409,
  // POST /runs/:id/replay on another version: a node upstream of fromNodeId differs there.
  UPSTREAM_CHANGED: 409,
  TOOLSET_NOT_OAUTH: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  BODY_TOO_LARGE: 413,
  BODY_TOO_DEEP: 400,
  // GET /oauth/callback: a state that is unknown, used or expired, or whose toolset moved.
  OAUTH_STATE_INVALID: 400,
  // The authorization server answered the callback with an error (the person declined…).
  OAUTH_AUTHORIZATION_DENIED: 400,
  RATE_LIMITED: 429,
  // A dependency is down (libs/workflow persistence/outages.ts): answered with Retry-After.
  STORE_UNAVAILABLE: 503,
  QUEUE_UNAVAILABLE: 503,
  OUTBOUND_BLOCKED: 422,
  TOOL_UNUSABLE: 422,
  // The codes of libs/mcp's McpError, each given a status below.
  MCP_INPUT_INVALID: 400,
  MCP_UNREACHABLE: 422,
  MCP_AUTH_FAILED: 422,
  // An OAuth toolset without a usable grant: POST /toolsets/:id/authorize, then try again.
  MCP_AUTH_REQUIRED: 422,
  MCP_PROTOCOL_ERROR: 422,
  MCP_TIMEOUT: 422,
  // A tool asked for input that an ad-hoc call cannot give (runs pause for it instead).
  MCP_INPUT_REQUIRED: 422,
  // Not the caller's doing: a canceled call or a tool's own error reaching the API is a fault.
  MCP_CANCELED: 500,
  MCP_TOOL_ERROR: 500,
} as const satisfies Record<McpErrorCode, number> & Record<string, number>;

export type ApiErrorCode = keyof typeof HTTP_STATUS_BY_CODE;

/** The status of a code thrown from below the API (libs); undefined for a code the API does not know. */
export function statusOfCode(code: string): number | undefined {
  return Object.hasOwn(HTTP_STATUS_BY_CODE, code) ? HTTP_STATUS_BY_CODE[code as ApiErrorCode] : undefined;
}
