/**
 * The clock and the off-switch of one request. We own both instead of the SDK: the SDK reports
 * a cancel and a timeout alike (-32001), and its maxTotalTimeout neither fires without progress
 * nor tells the server. Every way out here aborts one internal signal, so the SDK always sends
 * notifications/cancelled, and the recorded reason names the outcome.
 */
import { McpError, McpErrorCode } from '../errors.js';
import type { ProgressUpdate } from '../types.js';

export const DEFAULT_CALL_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 30 * 60_000;
/** The SDK's own timer must never win against ours. */
const SDK_BACKSTOP_MS = 60_000;

export interface DeadlineOptions {
  timeoutMs: number;
  maxTotalTimeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (update: ProgressUpdate) => void;
  /** Names the request in error messages, e.g. `tool "echo"`. */
  what: string;
}

export class CallDeadline {
  readonly controller = new AbortController();
  private outcome?: McpError;
  private idleTimer?: ReturnType<typeof setTimeout>;
  private readonly totalTimer: ReturnType<typeof setTimeout>;
  private readonly maxTotalMs: number;
  private readonly onUserAbort = () => this.stop(new McpError(McpErrorCode.CANCELED, `${this.options.what} was canceled`));

  constructor(private readonly options: DeadlineOptions) {
    this.maxTotalMs = options.maxTotalTimeoutMs ?? Math.max(options.timeoutMs, DEFAULT_MAX_TOTAL_TIMEOUT_MS);
    this.totalTimer = setTimeout(
      () => this.stop(new McpError(McpErrorCode.TIMEOUT, `${options.what} exceeded its maximum total time of ${this.maxTotalMs} ms`)),
      this.maxTotalMs,
    );
    this.armIdleTimer();
    options.signal?.addEventListener('abort', this.onUserAbort, { once: true });
    if (options.signal?.aborted) this.onUserAbort();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Options for the SDK request: our signal, progress resetting our idle timer, a backstop timeout. */
  requestOptions() {
    return {
      signal: this.controller.signal,
      timeout: this.maxTotalMs + SDK_BACKSTOP_MS,
      onprogress: (update: ProgressUpdate) => {
        this.armIdleTimer();
        this.options.onProgress?.({ progress: update.progress, total: update.total, message: update.message });
      },
    };
  }

  /** Ends the request with `outcome` (first reason wins); the SDK tells the server. */
  stop(outcome: McpError): void {
    if (this.controller.signal.aborted) return;
    this.outcome = outcome;
    this.controller.abort(outcome);
  }

  /** The error to report: our recorded outcome when we stopped the request, else undefined. */
  explain(): McpError | undefined {
    return this.outcome;
  }

  dispose(): void {
    clearTimeout(this.idleTimer);
    clearTimeout(this.totalTimer);
    this.options.signal?.removeEventListener('abort', this.onUserAbort);
  }

  private armIdleTimer(): void {
    clearTimeout(this.idleTimer);
    const { timeoutMs, what } = this.options;
    this.idleTimer = setTimeout(
      () => this.stop(new McpError(McpErrorCode.TIMEOUT, `${what}: no response or progress within ${timeoutMs} ms`)),
      timeoutMs,
    );
  }
}
