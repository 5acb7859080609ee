import { Injectable } from '@nestjs/common';
import { isFinishedRunStatus } from '#workflow';
import { RunRepository, toRunView, type RunStreamEvent, type RunView } from '#workflow/nest';
import { RunEventsHub } from './run-events-hub.js';

/** Re-read interval while waiting, in case a `run.finished` message was lost (Redis away). */
const POLL_MS = 1000;

export interface RunWatch {
  /**
   * The run once `done` (by default: settled, i.e. finished or waiting), or as it is when `timeoutMs`
   * runs out; `known` spares the first read.
   */
  until(timeoutMs: number, known?: RunView, done?: (run: RunView) => boolean): Promise<RunView | undefined>;
  close(): void;
}

export function isTerminal(run: Pick<RunView, 'status'> | undefined): boolean {
  return run !== undefined && isFinishedRunStatus(run.status);
}

/** Finished, or waiting for input (which may take days): nothing more happens until someone acts. */
export function isSettled(run: Pick<RunView, 'status'> | undefined): boolean {
  return run?.status === 'waiting' || isTerminal(run);
}

/**
 * Waits for runs to finish. `run.finished` is published only once the terminal state is in
 * MongoDB and carries the run, so it is the answer; MongoDB is re-read when no message came.
 */
@Injectable()
export class RunWaiter {
  constructor(
    private readonly runs: RunRepository,
    private readonly hub: RunEventsHub,
  ) {}

  /** Starts listening now (before the run is enqueued, so its end cannot be missed); `onEvent` sees every live event. */
  async watch(runId: string, onEvent?: (event: RunStreamEvent) => void): Promise<RunWatch> {
    /** The run as the last `run.finished` or `run.waiting` event carried it. */
    let announced: RunView | undefined;
    let wake: () => void = () => undefined;
    const unsubscribe = await this.hub.subscribe(runId, (event) => {
      onEvent?.(event);
      if (event.type !== 'run.finished' && event.type !== 'run.waiting') return;
      announced = event.run;
      wake();
    });
    const read = async () => {
      const doc = await this.runs.findById(runId);
      return doc && toRunView(doc);
    };
    const until = async (timeoutMs: number, known?: RunView, done: (run: RunView) => boolean = isSettled) => {
      const deadline = Date.now() + timeoutMs;
      let latest = known ?? (await read());
      for (;;) {
        if (announced && done(announced)) return announced;
        const remaining = deadline - Date.now();
        if (!latest || done(latest) || remaining <= 0) return latest;
        const before = announced;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(POLL_MS, remaining));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
          if (announced !== before) wake();
        });
        if (!announced || !done(announced)) latest = await read();
      }
    };
    return { until, close: unsubscribe };
  }

  async wait(runId: string, timeoutMs: number): Promise<RunView | undefined> {
    const watch = await this.watch(runId);
    try {
      return await watch.until(timeoutMs);
    } finally {
      watch.close();
    }
  }
}
