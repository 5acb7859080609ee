import { Schema, type Types } from 'mongoose';
import type { RunError } from '../engine/run-events.js';
import { RUN_STATUSES, type RunStatus } from '../engine/statuses.js';
import { RUN_SOURCES, type RunNodeCounts, type RunSource } from './run-record.js';

export const RUN_MODEL = 'Run';

/** The request a waiting run waits on (`requestedSchema` as JSON text: any JSON Schema keyword survives the store). */
export interface InputRequestDoc {
  nodeId: string;
  message: string;
  requestedSchema: string;
  requestedAt: Date;
  /** When the run resumes by itself, answered or not (a delayed queue job brings it back). */
  resumeAt?: Date;
  /** JSON text of the end user's OAuth authorization the node waits for (AuthorizationRequest). */
  authorization?: string;
}

/**
 * One run as stored; the repositories hand out RunRecord (run-record.ts) instead. Every state
 * change is a single-document update guarded by the expected status (and, for the worker, by its
 * `lease`), so no transaction is needed: a stale writer's update simply matches nothing. Node
 * results live in `node_executions`, except the last ones: the records not yet written when the
 * run ended ride on its terminal write, in `finalExecutions`.
 */
export interface RunDoc {
  _id: Types.ObjectId;
  workflowId: Types.ObjectId;
  version: number;
  status: RunStatus;
  /** JSON text (see json-field.ts). */
  inputs: string;
  /** The secret inputs (inputSchema `writeOnly` / `format: "password"`), sealed JSON; `inputs` holds `***` for them. */
  secretInputs?: string;
  outputs?: string;
  error?: RunError;
  stats?: RunNodeCounts;
  createdAt: Date;
  /** First start; the run's deadline counts from here, across resumes. */
  startedAt?: Date;
  finishedAt?: Date;
  durationMs?: number;
  /** `<workflowId>:<Idempotency-Key>`; unique where present. */
  idempotencyScope?: string;
  /** Hash of what was asked (version, inputs) so a reused key with another body is refused. */
  requestHash?: string;
  retryOf?: Types.ObjectId;
  /** A sub-workflow's run: the run whose `workflow` node started it, that node, and how deep below a top-level run it is (1 = a child). */
  parentRunId?: Types.ObjectId;
  parentNodeId?: string;
  depth?: number;
  /** The run this one replays from a node: the upstream nodes' records were copied from it. */
  replayOf?: Types.ObjectId;
  /** Id of the API key that asked for the run (start or retry). */
  triggeredBy?: string;
  /** Absent = `api`. */
  source?: RunSource;
  /** The published MCP server whose tool call started the run (`source: mcp`). */
  mcpServerId?: string;
  /** The schedule that fired (`source: schedule`) and the time of that firing. */
  scheduleId?: string;
  scheduledFor?: Date;
  /** The inbound webhook (`source: webhook`) and the delivery id its sender gave. */
  webhookId?: string;
  deliveryId?: string;
  /** Last time the run was handed to BullMQ successfully (unset while Redis was unreachable). */
  enqueuedAt?: Date;
  /** How many times a worker took the run (first start, retries, resumes); bounded. */
  claims: number;
  /** Token of the worker attempt that holds the run; terminal updates require it. */
  lease?: string;
  cancelRequestedAt?: Date;
  /** While `waiting`: the request for input the run waits on. */
  inputRequest?: InputRequestDoc;
  /** Answers given so far and how to resume (sealed; see run-input.ts). */
  inputState?: string;
  /** Last resume from `waiting`: the run's deadline counts from here (waiting for a person is not run time). */
  resumedAt?: Date;
  /** When the sweep last confirmed this active run has a live job (or when it was created). */
  checkedAt: Date;
  /** JSON text: the node executions the terminal write carried (log copies, no resume state). */
  finalExecutions?: string;
}

export const RunSchema = new Schema<RunDoc>(
  {
    workflowId: { type: Schema.Types.ObjectId, required: true },
    version: { type: Number, required: true },
    status: { type: String, enum: RUN_STATUSES, required: true },
    inputs: { type: String, required: true },
    secretInputs: { type: String },
    outputs: { type: String },
    error: { type: { code: String, message: String, nodeId: String, path: String, _id: false } },
    stats: { type: { nodesExecuted: Number, nodesSkipped: Number, nodesFailed: Number, _id: false } },
    createdAt: { type: Date, required: true },
    startedAt: { type: Date },
    finishedAt: { type: Date },
    durationMs: { type: Number },
    idempotencyScope: { type: String },
    requestHash: { type: String },
    retryOf: { type: Schema.Types.ObjectId },
    replayOf: { type: Schema.Types.ObjectId },
    parentRunId: { type: Schema.Types.ObjectId },
    parentNodeId: { type: String },
    depth: { type: Number },
    triggeredBy: { type: String },
    source: { type: String, enum: RUN_SOURCES },
    mcpServerId: { type: String },
    scheduleId: { type: String },
    scheduledFor: { type: Date },
    webhookId: { type: String },
    deliveryId: { type: String },
    enqueuedAt: { type: Date },
    claims: { type: Number, default: 0 },
    lease: { type: String },
    cancelRequestedAt: { type: Date },
    checkedAt: { type: Date, required: true },
    inputRequest: {
      type: {
        nodeId: String,
        message: String,
        requestedSchema: String,
        requestedAt: Date,
        resumeAt: Date,
        authorization: String,
        _id: false,
      },
    },
    inputState: { type: String },
    resumedAt: { type: Date },
    finalExecutions: { type: String },
  },
  { collection: 'runs', versionKey: false },
);
RunSchema.index({ workflowId: 1, _id: -1 });
RunSchema.index({ status: 1, _id: -1 });
RunSchema.index({ triggeredBy: 1, _id: -1 }, { sparse: true });
// A trigger's last runs, and whether one is still active (a schedule's `overlap: skip`).
RunSchema.index({ scheduleId: 1, _id: -1 }, { sparse: true });
RunSchema.index({ webhookId: 1, _id: -1 }, { sparse: true });
// A run's sub-workflow runs (GET /runs?parentRunId=, the cancel cascade).
RunSchema.index({ parentRunId: 1, _id: -1 }, { sparse: true });
RunSchema.index({ status: 1, checkedAt: 1 });
// Retention by age: the oldest finished runs first.
RunSchema.index({ finishedAt: 1 });
// Sparse (not partial: FerretDB v1 has no partialFilterExpression) so runs without a key never collide.
RunSchema.index({ idempotencyScope: 1 }, { unique: true, sparse: true });
