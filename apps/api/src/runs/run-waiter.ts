import { Injectable } from '@nestjs/common';
import { RunRepository, type RunDoc } from '#workflow';
import { RunEventsHub } from './run-events-hub.js';

/** Re-read interval while waiting, in case a `run.finished` message was lost (Redis away). */
const POLL_MS = 1000;

export interface RunWatch {
  /** The run once terminal, or as it is when `timeoutMs` runs out. */
  until(timeoutMs: number): Promise<RunDoc | undefined>;
  close(): void;
}

export function isTerminal(run: RunDoc | undefined): boolean {
  return run !== undefined && run.status !== 'queued' && run.status !== 'running';
}

/** Waits for runs to finish: woken by `run.finished` over Redis, MongoDB re-read as the truth. */
@Injectable()
export class RunWaiter {
  constructor(
    private readonly runs: RunRepository,
    private readonly hub: RunEventsHub,
  ) {}

  /** Starts listening now (before the run is enqueued, so its end cannot be missed). */
  async watch(runId: string): Promise<RunWatch> {
    let finished = false;
    let wake: () => void = () => undefined;
    const unsubscribe = await this.hub.subscribe(runId, (event) => {
      if (event.type !== 'run.finished') return;
      finished = true;
      wake();
    });
    const until = async (timeoutMs: number): Promise<RunDoc | undefined> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        finished = false;
        const run = await this.runs.findById(runId);
        const remaining = deadline - Date.now();
        if (!run || isTerminal(run) || remaining <= 0) return run;
        if (!finished) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(POLL_MS, remaining));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      }
    };
    return { until, close: unsubscribe };
  }

  async wait(runId: string, timeoutMs: number): Promise<RunDoc | undefined> {
    const watch = await this.watch(runId);
    try {
      return await watch.until(timeoutMs);
    } finally {
      watch.close();
    }
  }
}
