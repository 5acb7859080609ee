import { Schema, type Types } from 'mongoose';
import type { NodeStatus } from '../engine/statuses.js';

export const NODE_EXECUTION_MODEL = 'NodeExecution';

/**
 * One document per node execution (the run's durable state and its log), written once when the
 * node finishes. `inputs`/`outputs` are the capped, redacted log copies; `state` is the full
 * output kept apart for resume, never sent to API clients. JSON fields are text (json-field.ts).
 */
export interface NodeExecutionDoc {
  /** `<runId>:<slot>` (run-journal.ts); `<runId>:<seq>` or an ObjectId on records written before that. */
  _id: string | Types.ObjectId;
  runId: Types.ObjectId;
  /** Place in the run's journal; absent on records written before it (their slot is their seq). */
  slot?: number;
  /** The slot of the claim that wrote it. */
  epoch?: number;
  seq: number;
  nodeId: string;
  type: string;
  name?: string;
  status: NodeStatus;
  attempt: number;
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  inputs: string;
  inputsTruncated?: boolean;
  outputs: string;
  truncated?: boolean;
  error?: { code: string; message: string };
  details?: string;
  activeHandles: string[];
  state?: string;
  stateTooLarge?: boolean;
}

export const NodeExecutionSchema = new Schema<NodeExecutionDoc>(
  {
    _id: { type: Schema.Types.Mixed },
    runId: { type: Schema.Types.ObjectId, required: true },
    slot: { type: Number },
    epoch: { type: Number },
    seq: { type: Number, required: true },
    nodeId: { type: String, required: true },
    type: { type: String, required: true },
    name: { type: String },
    status: { type: String, required: true },
    attempt: { type: Number, required: true },
    startedAt: { type: Date, required: true },
    finishedAt: { type: Date, required: true },
    durationMs: { type: Number, required: true },
    inputs: { type: String, required: true },
    inputsTruncated: { type: Boolean },
    outputs: { type: String, required: true },
    truncated: { type: Boolean },
    error: { type: { code: String, message: String, _id: false } },
    details: { type: String },
    activeHandles: { type: [String], default: [] },
    state: { type: String },
    stateTooLarge: { type: Boolean },
  },
  { collection: 'node_executions', versionKey: false },
);
NodeExecutionSchema.index({ runId: 1, seq: 1 }, { unique: true });
