import { findOutboundBlock, isMcpError, McpError, type ArgumentError, type ConnectAttempt, type HttpTransport } from '#mcp';
import { ApiError, InvalidRequestError, type ProblemDetail } from '../common/api-errors.js';
import { dottedPathPointer } from '../common/zod-validation.js';
import { scrubSecrets } from '#workflow/nest';

/**
 * A cause of a failed connection; `transport` (and `protocolVersion` for the stateless 2026-07-28
 * revision) names the attempt when several were made.
 */
export interface ConnectionProblem extends ProblemDetail {
  transport?: HttpTransport;
  protocolVersion?: string;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the API answers when reaching an MCP server failed: 422 with the McpError's code
 * (`MCP_UNREACHABLE`, `MCP_AUTH_FAILED`, `MCP_PROTOCOL_ERROR`, `MCP_TIMEOUT`) or
 * `OUTBOUND_BLOCKED`, and every cause in `errors` (each attempt when several were made).
 */
export function connectionFailure(error: unknown, secrets: string[], path = '/url'): Error {
  const scrub = (text: string) => scrubSecrets(text, secrets);
  const blocked = findOutboundBlock(error);
  if (blocked) {
    const message = scrub(blocked.message);
    return new ApiError(blocked.code, message, [{ path, code: blocked.code, message }]);
  }
  if (!isMcpError(error)) return error instanceof Error ? error : new Error(String(error));
  if (error.code === 'MCP_INPUT_INVALID') return invalidArguments(error.errors ?? [], scrub(error.message));
  const causes = error.causes ?? [];
  const problems: ConnectionProblem[] =
    causes.length > 1
      ? causes.map((cause, index) => ({
          path,
          code: cause instanceof McpError ? cause.code : error.code,
          message: scrub(messageOf(cause)),
          ...attemptOf(error.attempts?.[index]),
        }))
      : [{ path, code: error.code, message: scrub(error.message) }];
  return new ApiError(error.code, scrub(error.message), problems);
}

function attemptOf(attempt: ConnectAttempt | undefined): Pick<ConnectionProblem, 'transport' | 'protocolVersion'> {
  if (!attempt || attempt.transport === 'stdio') return {};
  return { transport: attempt.transport, ...(attempt.protocolVersion === undefined ? {} : { protocolVersion: attempt.protocolVersion }) };
}

/** `items[0]["a b"].name` (libs/mcp's argument paths) → `/arguments/items/0/a b/name`. */
export function argumentPointer(path: string): string {
  return dottedPathPointer('arguments', path);
}

export function invalidArguments(errors: ArgumentError[], message = 'The tool arguments are invalid'): InvalidRequestError {
  const problems = errors.map((error) => ({ path: argumentPointer(error.path), code: 'MCP_INPUT_INVALID', message: error.message }));
  return new InvalidRequestError(problems, message, 'MCP_INPUT_INVALID');
}
