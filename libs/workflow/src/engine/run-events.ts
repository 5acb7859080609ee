import type { ExecutionRecord } from './run-store.js';
import type { RunOutcomeStatus } from './statuses.js';

export interface RunError {
  code: string;
  message: string;
  /** The node whose failure ended the run, when one did. */
  nodeId?: string;
  path?: string;
}

export interface RunStats {
  /** Nodes that ran (succeeded, failed or canceled), resumed ones included. */
  nodesExecuted: number;
  nodesSkipped: number;
  nodesFailed: number;
  /** Time of this `runWorkflow` call (a resumed run counts from its resume). */
  durationMs: number;
}

export interface RunOutcome {
  /** `waiting`: nothing more could run while some node waits for input; the host stores it and resumes the run later. */
  status: RunOutcomeStatus;
  /** The inputs of the `end` node(s) that ran; `{}` when none did. */
  outputs: Record<string, unknown>;
  error?: RunError;
  stats: RunStats;
  /** With `waiting`: the nodes that wait for input, in the order they paused. */
  waitingNodes?: string[];
}

/** Emitted as the run progresses; the host turns them into SSE. `at` is epoch ms. */
export type RunEvent =
  | { type: 'run.started'; runId: string; at: number; resumedExecutions: number }
  | { type: 'node.started'; runId: string; at: number; nodeId: string; nodeType: string; attempt: number }
  | { type: 'node.finished'; runId: string; at: number; record: ExecutionRecord }
  | { type: 'run.finished'; runId: string; at: number; outcome: RunOutcome };
