/** A destination the outbound policy refuses (scheme, metadata address, OUTBOUND_DENY, too many redirects). */
export class OutboundBlockedError extends Error {
  override readonly name = 'OutboundBlockedError';
  readonly code = 'OUTBOUND_BLOCKED';

  constructor(reason: string) {
    super(`outbound request refused: ${reason}`);
  }
}

/**
 * The OutboundBlockedError behind an error, if any: the MCP client wraps what fetch throws
 * (McpError cause / causes, fetch's own `cause`), and callers want to report the refusal itself.
 */
export function findOutboundBlock(error: unknown, depth = 0): OutboundBlockedError | undefined {
  if (error instanceof OutboundBlockedError) return error;
  if (!(error instanceof Error) || depth > 6) return undefined;
  const causes = (error as { causes?: unknown }).causes;
  for (const candidate of [error.cause, ...(Array.isArray(causes) ? causes : [])]) {
    const found = findOutboundBlock(candidate, depth + 1);
    if (found) return found;
  }
  return undefined;
}
