import type { ExecutionRecord } from '../engine/run-store.js';
import type { AuthorizationRequest, NodeErrorInfo } from '../engine/types.js';
import type { NodeStatus, RunStatus } from '../engine/statuses.js';
import type { RunError } from '../engine/run-events.js';
import type { RunNodeCounts, RunRecord, RunSource } from './run-record.js';

/** `GET /runs/:id` (SPEC §4), also the payload of the `run.finished` event. */
export interface RunView {
  id: string;
  workflowId: string;
  version: number;
  status: RunStatus;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: RunError | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  stats: RunNodeCounts | null;
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
  /** The node waits for an end user's OAuth authorization (per-user toolset): the URL to open; else null. */
  authorization: AuthorizationRequest | null;
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

/** The run as the API shows it; the record's parsed fields are handed on as they are (not copied). */
export function toRunView(run: RunRecord): RunView {
  return {
    id: run.id,
    workflowId: run.workflowId,
    version: run.version,
    status: run.status,
    inputs: run.inputs,
    outputs: run.outputs ?? null,
    error: run.error ? { ...run.error } : null,
    createdAt: run.createdAt.toISOString(),
    startedAt: iso(run.startedAt),
    finishedAt: iso(run.finishedAt),
    durationMs: run.durationMs ?? null,
    stats: run.stats
      ? { nodesExecuted: run.stats.nodesExecuted, nodesSkipped: run.stats.nodesSkipped, nodesFailed: run.stats.nodesFailed }
      : null,
    cancelRequestedAt: iso(run.cancelRequestedAt),
    retryOf: run.retryOf ?? null,
    replayOf: run.replayOf ?? null,
    parentRunId: run.parentRunId ?? null,
    triggeredBy: run.triggeredBy ?? null,
    source: run.source ?? 'api',
    mcpServerId: run.mcpServerId ?? null,
    scheduleId: run.scheduleId ?? null,
    scheduledFor: iso(run.scheduledFor),
    webhookId: run.webhookId ?? null,
    deliveryId: run.deliveryId ?? null,
    inputRequest: run.inputRequest
      ? {
          nodeId: run.inputRequest.nodeId,
          message: run.inputRequest.message,
          requestedSchema: run.inputRequest.requestedSchema,
          requestedAt: run.inputRequest.requestedAt.toISOString(),
          resumeAt: run.inputRequest.resumeAt ? run.inputRequest.resumeAt.toISOString() : null,
          authorization: run.inputRequest.authorization ?? null,
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
