import type { ExecutionRecord } from '../engine/run-store.js';
import type { NodeErrorInfo } from '../engine/types.js';
import type { NodeStatus, RunStatus } from '../engine/statuses.js';
import { fromJsonText } from './json-field.js';
import type { RunDoc, RunErrorDoc, RunSource, RunStatsDoc } from './run.schema.js';

/** `GET /runs/:id` (SPEC §4), also the payload of the `run.finished` event. */
export interface RunView {
  id: string;
  workflowId: string;
  version: number;
  status: RunStatus;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: RunErrorDoc | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  stats: RunStatsDoc | null;
  /** Set while a cancel is on its way to the worker, and on canceled runs. */
  cancelRequestedAt: string | null;
  retryOf: string | null;
  /** A sub-workflow's run: the run whose `workflow` node started it. */
  parentRunId: string | null;
  /** `POST /runs/:id/replay`: the run whose recorded outputs this one started from. */
  replayOf: string | null;
  /** Id of the API key that started the run. */
  triggeredBy: string | null;
  /** `api` (REST), `mcp` (a published MCP server's tool call, `mcpServerId` names the server), `schedule` or `webhook`. */
  source: RunSource;
  mcpServerId: string | null;
  /** `source: schedule`: the schedule and the time of the firing that started the run. */
  scheduleId: string | null;
  scheduledFor: string | null;
  /** `source: webhook`: the hook and the delivery id its sender gave (a redelivery starts no second run). */
  webhookId: string | null;
  deliveryId: string | null;
  /** While `waiting`: what a tool asked (message, requestedSchema), which node, since when; else null. */
  inputRequest: InputRequestView | null;
}

export interface InputRequestView {
  nodeId: string;
  message: string;
  requestedSchema: Record<string, unknown> | boolean;
  requestedAt: string;
  /** When the run resumes by itself if nobody answers (an approval's timeout, a wait's end); null without one. */
  resumeAt: string | null;
}

/**
 * One node execution in `GET /runs/:id/logs` (SPEC §4). Type-specific details are spread in:
 * MCP `{toolsetId, tool, transport, sessionReused, isError}`, LLM `{model, usage, toolCalls}`.
 */
export interface LogItem {
  seq: number;
  nodeId: string;
  type: string;
  name: string | null;
  status: NodeStatus;
  attempt: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** Resolved inputs, secrets redacted, capped like outputs. */
  inputs: Record<string, unknown>;
  inputsTruncated: boolean;
  /** Capped at NODE_OUTPUT_MAX_BYTES; `truncated` says the copy was cut. */
  outputs: Record<string, unknown>;
  truncated: boolean;
  error: NodeErrorInfo | null;
  /** Handles this execution activated (`branch:<id>`, `else`, `error`, `out`). */
  activeHandles: string[];
  [detail: string]: unknown;
}

const iso = (date: Date | undefined | null): string | null => (date ? date.toISOString() : null);

export function toRunView(doc: RunDoc): RunView {
  return {
    id: String(doc._id),
    workflowId: String(doc.workflowId),
    version: doc.version,
    status: doc.status,
    inputs: fromJsonText(doc.inputs, {}),
    outputs: doc.outputs === undefined ? null : fromJsonText(doc.outputs, {}),
    error: doc.error ? { ...doc.error } : null,
    createdAt: doc.createdAt.toISOString(),
    startedAt: iso(doc.startedAt),
    finishedAt: iso(doc.finishedAt),
    durationMs: doc.durationMs ?? null,
    stats: doc.stats
      ? { nodesExecuted: doc.stats.nodesExecuted, nodesSkipped: doc.stats.nodesSkipped, nodesFailed: doc.stats.nodesFailed }
      : null,
    cancelRequestedAt: iso(doc.cancelRequestedAt),
    retryOf: doc.retryOf ? String(doc.retryOf) : null,
    replayOf: doc.replayOf ? String(doc.replayOf) : null,
    parentRunId: doc.parentRunId ? String(doc.parentRunId) : null,
    triggeredBy: doc.triggeredBy ?? null,
    source: doc.source ?? 'api',
    mcpServerId: doc.mcpServerId ?? null,
    scheduleId: doc.scheduleId ?? null,
    scheduledFor: iso(doc.scheduledFor),
    webhookId: doc.webhookId ?? null,
    deliveryId: doc.deliveryId ?? null,
    inputRequest: doc.inputRequest
      ? {
          nodeId: doc.inputRequest.nodeId,
          message: doc.inputRequest.message,
          requestedSchema: fromJsonText(doc.inputRequest.requestedSchema, {}),
          requestedAt: doc.inputRequest.requestedAt.toISOString(),
          resumeAt: doc.inputRequest.resumeAt ? doc.inputRequest.resumeAt.toISOString() : null,
        }
      : null,
  };
}

export function toLogItem(record: ExecutionRecord): LogItem {
  return {
    ...record.details,
    seq: record.seq,
    nodeId: record.nodeId,
    type: record.type,
    name: record.name ?? null,
    status: record.status,
    attempt: record.attempt,
    startedAt: new Date(record.startedAt).toISOString(),
    finishedAt: new Date(record.finishedAt).toISOString(),
    durationMs: record.durationMs,
    inputs: record.inputs,
    inputsTruncated: record.inputsTruncated === true,
    outputs: record.outputs,
    truncated: record.truncated === true,
    error: record.error ?? null,
    activeHandles: record.activeHandles,
  };
}
