import { ERROR_HANDLE, type WorkflowGraph } from './graph.js';
import type { ExecutionRecord } from './run-store.js';

export interface PersistedProgress {
  /** Records whose outcome the resumed run keeps, in `seq` order, at most one per node. */
  kept: ExecutionRecord[];
  /** Highest `seq` persisted so far; new records continue after it. */
  lastSeq: number;
  /**
   * The first node whose latest record is an uncaught failure. A run resumed after a crash executes
   * it again; a map's item takes it as the item's outcome (the item had failed: see run-workflow).
   */
  failed?: ExecutionRecord;
}

/** Whether a resumed run keeps this execution's outcome (else the node is executed again). */
export function standsOnResume(record: ExecutionRecord): boolean {
  if (record.status === 'succeeded') return record.state !== undefined;
  if (record.status === 'skipped') return true;
  return record.status === 'failed' && record.activeHandles.includes(ERROR_HANDLE) && record.error !== undefined;
}

/**
 * Which persisted executions stand. Kept: succeeded (with their full state), skipped, and failed
 * with a caught error. Everything else (canceled, an uncaught failure, a success too large to
 * store) is executed again. For a node logged more than once the latest record decides.
 */
export function readPersistedProgress(records: readonly ExecutionRecord[], graph: WorkflowGraph): PersistedProgress {
  if (records.length === 0) return { kept: [], lastSeq: 0 };
  const ordered = [...records].sort((a, b) => a.seq - b.seq);
  const latestByNode = new Map<string, ExecutionRecord>();
  for (const record of ordered) latestByNode.set(record.nodeId, record);
  const known = [...latestByNode.values()].filter((record) => graph.node(record.nodeId) !== undefined).sort((a, b) => a.seq - b.seq);
  const kept = known.filter(standsOnResume);
  const failed = known.find((record) => record.status === 'failed' && !standsOnResume(record) && record.error !== undefined);
  return { kept, lastSeq: ordered.length > 0 ? ordered[ordered.length - 1].seq : 0, ...(failed && { failed }) };
}
