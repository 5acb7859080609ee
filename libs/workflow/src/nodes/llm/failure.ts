import { toEngineError, EngineError } from '../../engine/errors.js';

/**
 * The error a failed `llm`/`agent` node ends with: the original code and message, carrying the
 * log details gathered so far (model calls, tool calls, usage), so a failed run still shows
 * what the model did and what it cost.
 */
export function failureWithDetails(thrown: unknown, details: Record<string, unknown>): EngineError {
  const error = toEngineError(thrown);
  return new EngineError(error.code, error.message, {
    path: error.path,
    details: { ...error.details, ...details },
    cause: error.cause ?? thrown,
  });
}
