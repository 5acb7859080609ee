import { START_NODE_TYPE, WorkflowGraph } from './graph.js';
import type { NodeRegistry } from './registry.js';
import { standsOnResume } from './resume.js';
import type { ExecutionRecord } from './run-store.js';
import type { WorkflowDefinition } from './types.js';

/** Why a run cannot be replayed from a node. */
export type ReplayRefusal = { reason: 'unknown-node'; message: string } | { reason: 'not-reached'; message: string };

/**
 * `POST /runs/:id/replay`: the records a new run starts with, so that the nodes upstream of
 * `fromNodeId` are not executed again but resumed from what the earlier run recorded (each marked
 * `replayed` in its details; no tool or model is called for them). Left out, and so executed
 * again: `start` (the replay's inputs may differ), pure nodes whose outputs the earlier run did not
 * keep (they give the same outputs from the same replayed inputs), `fromNodeId` and everything not
 * upstream of it. Refused when `fromNodeId` is not a node of the version, or when the earlier run
 * did not get there: an upstream node without a kept outcome, or `fromNodeId` never executed.
 */
export function planReplay(
  workflow: WorkflowDefinition,
  registry: NodeRegistry,
  earlier: readonly ExecutionRecord[],
  fromNodeId: string,
): { records: ExecutionRecord[] } | ReplayRefusal {
  const graph = new WorkflowGraph(workflow);
  if (!graph.node(fromNodeId)) return { reason: 'unknown-node', message: `node "${fromNodeId}" is not in this version of the workflow` };
  const latest = new Map<string, ExecutionRecord>();
  for (const record of [...earlier].sort((a, b) => a.seq - b.seq)) latest.set(record.nodeId, record);
  const from = latest.get(fromNodeId);
  if (!from || from.status === 'skipped') {
    return { reason: 'not-reached', message: `node "${fromNodeId}" was ${from ? 'skipped' : 'not reached'} in the earlier run` };
  }
  const kept: ExecutionRecord[] = [];
  for (const id of graph.ancestors(fromNodeId)) {
    const node = graph.node(id);
    const record = latest.get(id);
    if (!node || node.type === START_NODE_TYPE) continue;
    if (record && standsOnResume(record)) kept.push(record);
    else if (!(record?.status === 'succeeded' && registry.get(node.type)?.pure === true)) {
      const what = record ? `ended ${record.status}${record.stateTooLarge ? ' with outputs too large to keep' : ''}` : 'was not reached';
      return {
        reason: 'not-reached',
        message: `upstream node "${id}" ${what} in the earlier run, so "${fromNodeId}" cannot start from its outputs`,
      };
    }
  }
  kept.sort((a, b) => a.seq - b.seq);
  return { records: kept.map((record) => ({ ...record, details: { ...record.details, replayed: true } })) };
}

/**
 * Replaying on another version: the nodes upstream of `fromNodeId` in `next` whose definition or
 * incoming edges differ from `earlier`'s (or that `earlier` lacks), in `next`'s order. Empty: the
 * earlier run's records of those nodes hold for `next` too.
 */
export function upstreamChanges(earlier: WorkflowDefinition, next: WorkflowDefinition, fromNodeId: string): string[] {
  const before = new WorkflowGraph(earlier);
  const after = new WorkflowGraph(next);
  const incoming = (graph: WorkflowGraph, id: string) =>
    graph
      .incoming(id)
      .map((index) => `${graph.edges[index].source}\u0000${graph.edges[index].sourceHandle ?? ''}`)
      .sort();
  const upstream = after.ancestors(fromNodeId);
  return next.nodes
    .filter((node) => upstream.has(node.id))
    .filter((node) => {
      const old = before.node(node.id);
      return !old || canonical(old) !== canonical(node) || canonical(incoming(before, node.id)) !== canonical(incoming(after, node.id));
    })
    .map((node) => node.id);
}

/** JSON with object keys sorted: two definitions that differ only in key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : item,
  );
}
