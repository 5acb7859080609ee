import type { RunEvent } from './run-events.js';
import type { ExecutionRecord, RunStore } from './run-store.js';

/** Where a sub-graph's executions live in the run's log: node ids under `<nodeId>[<index>]/`, `itemPath` in the details. */
export interface SubgraphScope {
  prefix: string;
  index: number;
}

export function subgraphScope(nodeId: string, index: number): SubgraphScope {
  return { prefix: `${nodeId}[${index}]/`, index };
}

/** A body's record as the run logs it (nested maps add their index in front on the way out). */
export function toRunRecord(record: ExecutionRecord, scope: SubgraphScope): ExecutionRecord {
  const inner = record.details?.itemPath;
  const itemPath = [scope.index, ...(Array.isArray(inner) ? (inner as number[]) : [])];
  return { ...record, nodeId: `${scope.prefix}${record.nodeId}`, details: { ...record.details, itemPath } };
}

function toBodyRecord(record: ExecutionRecord, scope: SubgraphScope): ExecutionRecord {
  const itemPath = Array.isArray(record.details?.itemPath) ? (record.details.itemPath as number[]).slice(1) : [];
  const details = { ...record.details };
  if (itemPath.length > 0) details.itemPath = itemPath;
  else delete details.itemPath;
  return { ...record, nodeId: record.nodeId.slice(scope.prefix.length), details };
}

/** The run's store as one item's body sees it: its own records only, named as the body names them. */
export function subgraphStore(runStore: RunStore, loaded: readonly ExecutionRecord[], scope: SubgraphScope): RunStore {
  const mine = loaded.filter((record) => record.nodeId.startsWith(scope.prefix)).map((record) => toBodyRecord(record, scope));
  return {
    loadExecutions: async () => mine,
    saveExecution: (record) => runStore.saveExecution(toRunRecord(record, scope)),
    ...(runStore.deferExecution && { deferExecution: (record: ExecutionRecord) => runStore.deferExecution?.(toRunRecord(record, scope)) }),
  };
}

/** A body's node events as the run shows them; its own run.started / run.finished stay inside. */
export function toRunEvent(event: RunEvent, scope: SubgraphScope): RunEvent | undefined {
  if (event.type === 'node.started') return { ...event, nodeId: `${scope.prefix}${event.nodeId}` };
  if (event.type === 'node.finished') return { ...event, record: toRunRecord(event.record, scope) };
  return undefined;
}
