import { ERROR_HANDLE, type WorkflowGraph } from './graph.js';
import type { ExecutionRecord } from './run-store.js';

export interface PersistedProgress {
  /** Records whose outcome the resumed run keeps, in `seq` order, at most one per node. */
  kept: ExecutionRecord[];
  /** Highest `seq` persisted so far; new records continue after it. */
  lastSeq: number;
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
  const ordered = [...records].sort((a, b) => a.seq - b.seq);
  const latestByNode = new Map<string, ExecutionRecord>();
  for (const record of ordered) latestByNode.set(record.nodeId, record);
  const kept = [...latestByNode.values()]
    .filter((record) => graph.node(record.nodeId) !== undefined && standsOnResume(record))
    .sort((a, b) => a.seq - b.seq);
  return { kept, lastSeq: ordered.length > 0 ? ordered[ordered.length - 1].seq : 0 };
}
