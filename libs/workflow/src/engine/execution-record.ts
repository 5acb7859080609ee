import type { EngineLimits } from './limits.js';
import { capForLog, jsonByteLength } from './output-cap.js';
import type { ExecutionRecord } from './run-store.js';
import type { NodeStatus } from './statuses.js';
import type { NodeDefinition, NodeErrorInfo } from './types.js';

/** Host hook applied to resolved inputs before they are logged (secrets out). */
export type RedactInputs = (inputs: Record<string, unknown>, node: NodeDefinition) => Record<string, unknown>;

/** Where a record belongs: its run, its place in the run and the node. */
export interface RecordPlace {
  runId: string;
  seq: number;
  node: NodeDefinition;
  finishedAt: number;
  /** The node's name in the run when it is not its id (a body node of a map item: `each[7]/echo`). */
  nodeKey?: string;
  /** With `nodeKey`: the item's index path, logged in `details.itemPath`. */
  itemPath?: readonly number[];
}

/** What the execution did. Kept apart from the place so that no per-node copy merges the two. */
export interface ExecutionFacts {
  status: NodeStatus;
  attempt: number;
  startedAt: number;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  error?: NodeErrorInfo;
  details?: Record<string, unknown>;
  activeHandles: string[];
}

/** Builds the persisted record: redacted, capped log copies plus the full state for resume. */
export function buildExecutionRecord(
  place: RecordPlace,
  facts: ExecutionFacts,
  limits: EngineLimits,
  redact?: RedactInputs,
): ExecutionRecord {
  const { node, finishedAt } = place;
  const loggedInputs = capForLog(redact ? redact(facts.inputs, node) : facts.inputs, limits.maxOutputBytes);
  const loggedOutputs = capForLog(facts.outputs, limits.maxOutputBytes);
  const record: ExecutionRecord = {
    runId: place.runId,
    seq: place.seq,
    nodeId: place.nodeKey ?? node.id,
    type: node.type,
    status: facts.status,
    attempt: facts.attempt,
    startedAt: facts.startedAt,
    finishedAt,
    durationMs: Math.max(0, finishedAt - facts.startedAt),
    inputs: loggedInputs.value,
    outputs: loggedOutputs.value,
    activeHandles: facts.activeHandles,
  };
  if (node.name !== undefined) record.name = node.name;
  if (loggedInputs.truncated) record.inputsTruncated = true;
  if (loggedOutputs.truncated) record.truncated = true;
  if (facts.error) record.error = { code: facts.error.code, message: facts.error.message };
  if (place.itemPath) record.details = { ...facts.details, itemPath: place.itemPath as number[] };
  else if (facts.details) record.details = facts.details;
  if (facts.status === 'succeeded') {
    // Small outputs are already whole in the log copy; reuse it rather than measuring twice.
    if (!loggedOutputs.truncated || jsonByteLength(facts.outputs) <= limits.maxStateBytes) record.state = { outputs: facts.outputs };
    else record.stateTooLarge = true;
  }
  return record;
}
