/** Failure codes of `code` nodes (the one place they are spelled). */
export const CODE_ERROR_CODES = {
  /** The code ran past its CPU-time limit (`timeoutMs`) and was interrupted. */
  timeout: 'CODE_TIMEOUT',
  /** The code asked for more memory than `memoryMb` allows. */
  memoryLimit: 'CODE_MEMORY_LIMIT',
  /** The code did not compile or threw; the message names the user's line and column. */
  failed: 'CODE_ERROR',
  /** The returned value does not match the node's `outputSchema`. */
  outputInvalid: 'CODE_OUTPUT_INVALID',
} as const;

export type CodeErrorCode = (typeof CODE_ERROR_CODES)[keyof typeof CODE_ERROR_CODES];

/** One piece of code to run, as it crosses into a sandbox thread (plain data). */
export interface SandboxTask {
  code: string;
  /** The node's inputs as JSON text. */
  inputsJson: string;
  timeoutMs: number;
  memoryMb: number;
}

/** What a sandbox answers: the returned value as JSON text, or a failure with the user's position. */
export type SandboxOutcome =
  { ok: true; resultJson: string } | { ok: false; code: CodeErrorCode; message: string; line?: number; column?: number };
