import { Injectable } from '@nestjs/common';

/**
 * Why a run stopped before its engine finished:
 * - `cancel`: the user asked; the run ends `canceled`;
 * - `lease-lost`: another claim took the run: the store refused this execution's write (run-journal.ts);
 * - `shutdown`: this worker is stopping; the run is handed back to the queue and resumes elsewhere.
 * Only `cancel` ends the run; the others leave its state to the next claim.
 */
export type StopCause = 'cancel' | 'lease-lost' | 'shutdown';

export class RunHandle {
  private readonly controller = new AbortController();
  private stopCause?: StopCause;

  constructor(
    readonly runId: string,
    readonly jobId: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cause(): StopCause | undefined {
    return this.stopCause;
  }

  /** The first cause wins; the engine sees its signal aborted (in-flight MCP calls are cancelled). */
  stop(cause: StopCause): void {
    if (this.stopCause) return;
    this.stopCause = cause;
    this.controller.abort(new Error(`run ${this.runId} stopped: ${cause}`));
  }
}

/** The runs this worker process is executing now, by run id. */
@Injectable()
export class ActiveRuns {
  private readonly handles = new Map<string, RunHandle>();

  start(runId: string, jobId: string): RunHandle {
    const handle = new RunHandle(runId, jobId);
    this.handles.set(runId, handle);
    return handle;
  }

  end(handle: RunHandle): void {
    if (this.handles.get(handle.runId) === handle) this.handles.delete(handle.runId);
  }

  stop(runId: string, cause: StopCause): boolean {
    const handle = this.handles.get(runId);
    handle?.stop(cause);
    return handle !== undefined;
  }

  stopAll(cause: StopCause): void {
    for (const handle of this.handles.values()) handle.stop(cause);
  }

  /** Whether this worker is executing the run now. */
  holds(runId: string): boolean {
    return this.handles.has(runId);
  }

  ids(): string[] {
    return [...this.handles.keys()];
  }

  get size(): number {
    return this.handles.size;
  }
}
