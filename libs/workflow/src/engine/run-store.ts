import type { NodeStatus } from './statuses.js';
import type { NodeErrorInfo } from './types.js';

/**
 * One node execution, as logged (SPEC §4 log item) and as needed to resume a run.
 *
 * Two copies of the outputs: `outputs` is the capped copy shown in logs (`truncated` says it
 * was cut); `state.outputs` is the full value downstream nodes read, kept so that a resumed run
 * can feed them without executing the node again. When the full value is larger than the
 * `maxStateBytes` limit, `state` is left out and `stateTooLarge` is set: on resume that node is
 * executed again (the honest choice for a value too big to store; its tool's retry/idempotency
 * policy then matters as it does for any retry).
 */
export interface ExecutionRecord {
  runId: string;
  /** Order of finishing within the run, from 1; continues across resumes. Unique per run. */
  seq: number;
  nodeId: string;
  type: string;
  name?: string;
  status: NodeStatus;
  /** The attempt that produced this outcome (1 = no retry was needed); 0 for a skipped node. */
  attempt: number;
  /** Epoch milliseconds from the engine's Clock. */
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /** Resolved inputs after the host's `redact` hook, capped like outputs. */
  inputs: Record<string, unknown>;
  inputsTruncated?: boolean;
  /** Capped copy for the log. */
  outputs: Record<string, unknown>;
  truncated?: boolean;
  error?: NodeErrorInfo;
  /** Type-specific: MCP `{toolsetId, tool, transport, sessionReused, isError}`, LLM `{model, usage, toolCalls}`. */
  details?: Record<string, unknown>;
  /** Handles this execution activated (`error` for a caught failure, none when skipped). */
  activeHandles: string[];
  /** Full outputs for resume; see the note above. */
  state?: { outputs: Record<string, unknown> };
  stateTooLarge?: boolean;
}

/**
 * Port: where node executions are persisted as they finish (the worker implements it with MongoDB).
 * `saveExecution` resolves once the record is durable; saving a `(runId, seq)` that exists already
 * overwrites it. A rejection stops the run: `runWorkflow` rejects too, and the host retries (resumes).
 */
export interface RunStore {
  /** Executions persisted so far for the run, in any order (resume sorts them by `seq`). */
  loadExecutions(runId: string): Promise<ExecutionRecord[]>;
  saveExecution(record: ExecutionRecord): Promise<void>;
  /**
   * Optional: takes a record that need not be durable yet (a pure node's, a skip, an execution a
   * resume would run again): the store writes it with its next `saveExecution` (same round trip)
   * or the host with the run's terminal write. Without it, every record goes to `saveExecution`.
   */
  deferExecution?(record: ExecutionRecord): void;
}

export interface InMemoryRunStore extends RunStore {
  /** Saved records of a run, by `seq`. */
  records(runId: string): ExecutionRecord[];
}

/** A RunStore in process memory: for tests, benchmarks and hosts that need no durability. */
export function createInMemoryRunStore(): InMemoryRunStore {
  const byRun = new Map<string, Map<number, ExecutionRecord>>();
  const records = (runId: string): ExecutionRecord[] => [...(byRun.get(runId)?.values() ?? [])].sort((a, b) => a.seq - b.seq);
  const put = (record: ExecutionRecord): void => {
    let run = byRun.get(record.runId);
    if (!run) byRun.set(record.runId, (run = new Map()));
    run.set(record.seq, record);
  };
  return {
    records,
    loadExecutions: async (runId) => records(runId),
    saveExecution: async (record) => put(record),
    // Nothing here is durable: a deferred record is kept at once like any other.
    deferExecution: put,
  };
}
