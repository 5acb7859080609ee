import type { LogItem, RunView } from '../persistence/run-views.js';

/**
 * A node that had started, and not finished, when an event was published. Live `node.started` and
 * `node.finished` carry the others in flight, so that a listener that subscribed while they ran
 * can announce their starts at once instead of when they finish (SSE clients never see the list).
 */
export interface RunningNode {
  nodeId: string;
  nodeType: string;
  attempt: number;
  at: string;
}

/**
 * What the worker publishes on Redis while it runs a run, and what `GET /runs/:id/events`
 * streams (SSE event name = `type`). `run.finished` is published after the terminal state is in
 * MongoDB, so a client reacting to it reads the final run.
 */
export type RunStreamEvent =
  /** `claim`: the n-th time a worker took the run (2+ = resumed after a crash or a restart). */
  | { type: 'run.started'; runId: string; at: string; claim: number; resumedExecutions: number }
  | { type: 'node.started'; runId: string; at: string; nodeId: string; nodeType: string; attempt: number; running?: RunningNode[] }
  | { type: 'node.finished'; runId: string; at: string; item: LogItem; running?: RunningNode[] }
  | { type: 'run.finished'; runId: string; at: string; run: RunView };

/** Pub/sub channel of one run's events. */
export function runEventsChannel(queuePrefix: string, runId: string): string {
  return `${queuePrefix}:run-events:${runId}`;
}

/** Pub/sub channel every worker listens on; the message is the id of a run to cancel. */
export function runCancelChannel(queuePrefix: string): string {
  return `${queuePrefix}:run-cancel`;
}
