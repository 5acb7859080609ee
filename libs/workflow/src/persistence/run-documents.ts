import { Types } from 'mongoose';
import type { RunError } from '../engine/run-events.js';
import type { ExecutionRecord } from '../engine/run-store.js';
import type { FinishedRunStatus } from '../engine/statuses.js';
import type { AuthorizationRequest } from '../engine/types.js';
import { fromJsonText, toJsonText } from './json-field.js';
import { toFinalExecutions } from './node-execution.repository.js';
import type { RunInputRequest, RunNodeCounts, RunRecord, RunSource } from './run-record.js';
import type { RunDoc } from './run.schema.js';

export interface NewRun {
  /** The run's id when the caller needs it before the insert (to listen for its events); else a new one. */
  id?: string;
  workflowId: string;
  version: number;
  inputs: Record<string, unknown>;
  /** Sealed by the caller (SecretBox); never opened here. */
  secretInputs?: string;
  idempotencyKey?: string;
  requestHash?: string;
  retryOf?: string;
  /** A sub-workflow's run: its parent run, the parent's `workflow` node, its depth below the top-level run. */
  parent?: { runId: string; nodeId: string; depth: number };
  /** The run this one replays from a node (`POST /runs/:id/replay`). */
  replayOf?: string;
  triggeredBy?: string;
  /** Who started it; absent = the REST API. */
  trigger?: RunTrigger;
}

/** What started a run other than the REST API, with the id of that thing (and the firing or delivery). */
export interface RunTrigger {
  source: RunSource;
  mcpServerId?: string;
  scheduleId?: string;
  scheduledFor?: Date;
  webhookId?: string;
  deliveryId?: string;
}

/** Fields the caller already holds parsed from the same stored text: taken as they are, not parsed again. */
export interface ParsedRunFields {
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  inputRequest?: RunInputRequest;
}

function lazyParsed<T>(text: string | undefined, fallback: T): () => T {
  let parsed: T | undefined;
  return () => (parsed ??= fromJsonText(text, fallback));
}

function inputRequestOf(stored: NonNullable<RunDoc['inputRequest']>): RunInputRequest {
  return {
    nodeId: stored.nodeId,
    message: stored.message,
    requestedSchema: fromJsonText<Record<string, unknown> | boolean>(stored.requestedSchema, {}),
    requestedAt: stored.requestedAt,
    ...(stored.resumeAt && { resumeAt: stored.resumeAt }),
    ...(stored.authorization && { authorization: fromJsonText<AuthorizationRequest>(stored.authorization, {} as AuthorizationRequest) }),
  };
}

/** The record of a stored run, each JSON field parsed once (or taken from `parsed`). */
export function toRunRecord(doc: RunDoc, parsed: ParsedRunFields = {}): RunRecord {
  const { _id, workflowId, retryOf, parentRunId, replayOf, inputs, outputs, inputRequest, finalExecutions, ...plain } = doc;
  return {
    ...plain,
    id: String(_id),
    workflowId: String(workflowId),
    inputs: parsed.inputs ?? fromJsonText(inputs, {}),
    ...(outputs !== undefined && { outputs: parsed.outputs ?? fromJsonText(outputs, {}) }),
    ...(retryOf && { retryOf: String(retryOf) }),
    ...(parentRunId && { parentRunId: String(parentRunId) }),
    ...(replayOf && { replayOf: String(replayOf) }),
    ...(inputRequest && { inputRequest: parsed.inputRequest ?? inputRequestOf(inputRequest) }),
    finalExecutions: lazyParsed<ExecutionRecord[]>(finalExecutions, []),
  };
}

/** The document of a new queued run (`idempotencyScope`: `<workflowId>:<Idempotency-Key>` when a key was given). */
export function newRunDoc(input: NewRun, idempotencyScope: string | undefined, now: Date): RunDoc {
  return {
    _id: new Types.ObjectId(input.id),
    workflowId: new Types.ObjectId(input.workflowId),
    version: input.version,
    status: 'queued',
    inputs: toJsonText(input.inputs),
    ...(input.secretInputs === undefined ? {} : { secretInputs: input.secretInputs }),
    createdAt: now,
    checkedAt: now,
    claims: 0,
    ...(idempotencyScope && { idempotencyScope, requestHash: input.requestHash }),
    ...(input.retryOf && { retryOf: new Types.ObjectId(input.retryOf) }),
    ...(input.replayOf && { replayOf: new Types.ObjectId(input.replayOf) }),
    ...(input.parent && {
      parentRunId: new Types.ObjectId(input.parent.runId),
      parentNodeId: input.parent.nodeId,
      depth: input.parent.depth,
    }),
    ...(input.triggeredBy && { triggeredBy: input.triggeredBy }),
    ...(input.trigger && { source: input.trigger.source }),
    ...(input.parent && { source: 'workflow' as const }),
    ...(input.trigger?.mcpServerId && { mcpServerId: input.trigger.mcpServerId }),
    ...(input.trigger?.scheduleId && { scheduleId: input.trigger.scheduleId }),
    ...(input.trigger?.scheduledFor && { scheduledFor: input.trigger.scheduledFor }),
    ...(input.trigger?.webhookId && { webhookId: input.trigger.webhookId }),
    ...(input.trigger?.deliveryId && { deliveryId: input.trigger.deliveryId }),
  };
}

/** How a run ended, as its worker (or the sweep) writes it. */
export interface RunCompletion {
  status: FinishedRunStatus;
  outputs?: Record<string, unknown>;
  error?: RunError;
  stats?: RunNodeCounts;
  finishedAt: Date;
  /** Records not written yet (deferred by the engine): this write carries them. */
  executions?: readonly ExecutionRecord[];
}

/** What a run's terminal write sets: its end, its duration since its first start, and what it carried. */
export function terminalFields(run: Pick<RunRecord, 'startedAt' | 'createdAt'>, completion: RunCompletion) {
  const { finishedAt } = completion;
  const durationMs = Math.max(0, finishedAt.getTime() - (run.startedAt ?? run.createdAt).getTime());
  return {
    status: completion.status,
    finishedAt,
    durationMs,
    ...(completion.outputs && { outputs: toJsonText(completion.outputs) }),
    ...(completion.error && { error: completion.error }),
    ...(completion.stats && { stats: completion.stats }),
    ...(completion.executions && completion.executions.length > 0 ? { finalExecutions: toFinalExecutions(completion.executions) } : {}),
  };
}
