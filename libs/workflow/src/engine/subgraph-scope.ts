import type { ExecutionBudget } from './execution-budget.js';
import type { RunEvent } from './run-events.js';
import type { ExecutionRecord } from './run-store.js';
import type { EngineServices } from './types.js';

/**
 * Where a sub-graph's run lives in the run it is part of: its nodes are named `<prefix><bodyNodeId>`
 * (`each[7]/echo`; a map in a map's body: `outer[2]/inner[5]/echo`) in the log, in the events and
 * in the ports keyed by node, and each of its records carries `itemPath` ([7]; [2, 5]).
 */
export interface SubgraphScope {
  prefix: string;
  itemPath: readonly number[];
}

/** The scope of item `index` of node `nodeId`'s sub-graphs, inside `outer` (a sub-graph's own scope) or at the top. */
export function itemScope(outer: SubgraphScope | undefined, nodeId: string, index: number): SubgraphScope {
  const relative = `${nodeId}[${index}]/`;
  return outer ? { prefix: outer.prefix + relative, itemPath: [...outer.itemPath, index] } : { prefix: relative, itemPath: [index] };
}

/** What a sub-graph's run shares with the run it is part of (set by the engine for sub-graphs only). */
export interface EnclosingRun {
  scope: SubgraphScope;
  /** Log places from the run's one counter. */
  nextSeq(): number;
  /** The run's node executions: RUN_MAX_NODE_EXECUTIONS counts every item's too. */
  budget: ExecutionBudget;
  /** The item's records persisted before this call (a resume keeps them), named as the body names its nodes. */
  persisted: readonly ExecutionRecord[];
  /** The run's events: a sub-graph adds its node events, named in the run, and no run.started / run.finished of its own. */
  emit(event: RunEvent): void;
}

/**
 * Persisted records of sub-graph items, by the item's prefix as the reading run names it
 * (`each[7]/`), each renamed as that item's body names its nodes (`echo`; `inner[5]/echo`, read in
 * turn by the nested map's item). Built once per resumed run, not once per item.
 */
export function recordsByItem(records: readonly ExecutionRecord[]): Map<string, ExecutionRecord[]> {
  const byItem = new Map<string, ExecutionRecord[]>();
  for (const record of records) {
    const end = record.nodeId.indexOf(']/');
    if (end < 0) continue;
    const prefix = record.nodeId.slice(0, end + 2);
    let mine = byItem.get(prefix);
    if (!mine) byItem.set(prefix, (mine = []));
    mine.push({ ...record, nodeId: record.nodeId.slice(end + 2) });
  }
  return byItem;
}

/**
 * The run's ports as one item's nodes use them: the ones keyed by node (a tool call's idempotency
 * key and elicitation answers, a pause's request and state) get the node's name in the run, so
 * that two items' nodes of the same id never share a key. `relative` is the item's own level
 * (`each[7]/`): ports a sub-graph already scoped are scoped again, level by level.
 */
export function scopedServices(services: EngineServices, relative: string): EngineServices {
  const { tools, pauses } = services;
  return {
    ...services,
    tools: {
      callTool: (request) => tools.callTool(request.nodeId === undefined ? request : { ...request, nodeId: relative + request.nodeId }),
    },
    ...(pauses && {
      pauses: {
        stateOf: (nodeId) => pauses.stateOf(relative + nodeId),
        request: (nodeId, request) => pauses.request(relative + nodeId, request),
      },
    }),
  };
}
