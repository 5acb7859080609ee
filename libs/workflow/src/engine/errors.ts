/**
 * Codes of run and node failures produced by the engine and by its host (the worker, the run store):
 * the one place they are spelled. Errors raised by ports keep their own code (e.g. `MCP_TIMEOUT`,
 * `MCP_TOOL_ERROR`: libs/mcp's `McpErrorCode`).
 */
export const ENGINE_ERROR_CODES = {
  workflowInvalid: 'WORKFLOW_INVALID',
  nodeInputInvalid: 'NODE_INPUT_INVALID',
  nodeTimeout: 'NODE_TIMEOUT',
  nodeExecutionFailed: 'NODE_EXECUTION_FAILED',
  runDeadlineExceeded: 'RUN_DEADLINE_EXCEEDED',
  runRecoveryExhausted: 'RUN_RECOVERY_EXHAUSTED',
  runWorkerFailed: 'RUN_WORKER_FAILED',
  /** The run's job stalled (its worker died) more often than `RUN_MAX_STALLED_COUNT`. */
  runWorkerLost: 'RUN_WORKER_LOST',
  /** The run store refused a write the run cannot go on without (the host retries the job). */
  runStoreFailed: 'RUN_STORE_FAILED',
  workflowVersionNotFound: 'WORKFLOW_VERSION_NOT_FOUND',
  runCanceled: 'RUN_CANCELED',
  /** A tool asked for input and its node pauses the run for it (`elicitation: "pause"`): the node waits, it did not fail. */
  inputRequired: 'INPUT_REQUIRED',
  maxNodeExecutions: 'MAX_NODE_EXECUTIONS',
  /**
   * A takeover found the node's tool call recorded as about to be sent and no outcome: it may have
   * run. Resent only when the node's retry policy or the tool's `idempotentHint` allows; else this.
   */
  mcpCallInDoubt: 'MCP_CALL_IN_DOUBT',
  /** The execution lost its claim on the run (a later claim took it): the store refused its write. */
  runClaimStale: 'RUN_CLAIM_STALE',
  /** A map node's items list is longer than MAP_MAX_ITEMS. */
  mapTooManyItems: 'MAP_TOO_MANY_ITEMS',
  /** A `workflow` node would start a run deeper than MAX_WORKFLOW_DEPTH below the top-level run. */
  workflowDepthExceeded: 'WORKFLOW_DEPTH_EXCEEDED',
  unknownNodeType: 'UNKNOWN_NODE_TYPE',
  unknownTool: 'UNKNOWN_TOOL',
  unknownToolset: 'UNKNOWN_TOOLSET',
} as const;

export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[keyof typeof ENGINE_ERROR_CODES];

export interface EngineErrorOptions {
  /** JSON-pointer-ish location in the workflow definition, e.g. `/nodes/2/inputs/text`. */
  path?: string;
  /** Type-specific log details that survive a failure (e.g. the MCP call that returned isError). */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** An error as a value: a stable `code` callers branch on, a message for humans. */
export class EngineError extends Error {
  readonly code: string;
  readonly path?: string;
  readonly details?: Record<string, unknown>;

  constructor(code: string, message: string, options: EngineErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.path = options.path;
    this.details = options.details;
  }
}

/** Normalises anything thrown by an executor or a port; a `code` carried by the thrown value is kept. */
export function toEngineError(thrown: unknown, fallbackCode: string = ENGINE_ERROR_CODES.nodeExecutionFailed): EngineError {
  if (thrown instanceof EngineError) return thrown;
  if (typeof thrown === 'object' && thrown !== null) {
    const { code, message } = thrown as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' && message !== '' ? message : String(thrown);
    return new EngineError(typeof code === 'string' && code !== '' ? code : fallbackCode, text, { cause: thrown });
  }
  return new EngineError(fallbackCode, String(thrown));
}
