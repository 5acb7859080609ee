import type { RunError } from '../engine/run-events.js';
import type { ExecutionRecord } from '../engine/run-store.js';
import type { RunStatus } from '../engine/statuses.js';
import type { AuthorizationRequest } from '../engine/types.js';

/**
 * What started a run: the REST API (absent on older runs), a published MCP server's tool call, a
 * schedule, an inbound webhook, or a `workflow` node of another run (its `parentRunId`).
 */
export const RUN_SOURCES = ['api', 'mcp', 'schedule', 'webhook', 'workflow'] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

/** What a run's nodes did, as stored with it (the engine's RunStats without its per-call duration). */
export interface RunNodeCounts {
  nodesExecuted: number;
  nodesSkipped: number;
  nodesFailed: number;
}

/** The request a waiting run waits on: what a tool (or an approval or wait node) asked, which node, since when. */
export interface RunInputRequest {
  nodeId: string;
  message: string;
  requestedSchema: Record<string, unknown> | boolean;
  requestedAt: Date;
  /** When the run resumes by itself, answered or not (a delayed queue job brings it back). */
  resumeAt?: Date;
  /** The node waits for an end user's OAuth authorization (per-user toolset): the URL to open. */
  authorization?: AuthorizationRequest;
}

/**
 * One run as the repositories hand it out: string ids, JSON fields parsed. Every field is the
 * stored one (run.schema.ts says what each means), except `finalExecutions`: the records the
 * terminal write carried are parsed only when asked for (a run list or the worker never does).
 */
export interface RunRecord {
  id: string;
  workflowId: string;
  version: number;
  status: RunStatus;
  inputs: Record<string, unknown>;
  /** Sealed JSON (SecretBox); `inputs` holds `***` for them. */
  secretInputs?: string;
  outputs?: Record<string, unknown>;
  error?: RunError;
  stats?: RunNodeCounts;
  createdAt: Date;
  startedAt?: Date;
  finishedAt?: Date;
  durationMs?: number;
  idempotencyScope?: string;
  requestHash?: string;
  retryOf?: string;
  parentRunId?: string;
  parentNodeId?: string;
  depth?: number;
  replayOf?: string;
  triggeredBy?: string;
  /** Absent = `api`. */
  source?: RunSource;
  mcpServerId?: string;
  scheduleId?: string;
  scheduledFor?: Date;
  webhookId?: string;
  deliveryId?: string;
  enqueuedAt?: Date;
  claims: number;
  lease?: string;
  cancelRequestedAt?: Date;
  inputRequest?: RunInputRequest;
  /** Sealed (see run-input.ts). */
  inputState?: string;
  resumedAt?: Date;
  checkedAt: Date;
  /** The node records the terminal write carried (log copies), parsed on the first call. */
  finalExecutions: () => ExecutionRecord[];
}

/** Where the run's deadline counts from: its last resume from `waiting`, else its first start. */
export function deadlineStartOf(run: Pick<RunRecord, 'resumedAt' | 'startedAt' | 'createdAt'>): Date {
  return run.resumedAt ?? run.startedAt ?? run.createdAt;
}
