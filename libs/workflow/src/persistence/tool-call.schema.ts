import { Schema, type Types } from 'mongoose';

export const TOOL_CALL_MODEL = 'ToolCall';
export const TOOL_CALLS_COLLECTION = 'tool_calls';

/** Where a tool call came from: a run's node (mcpTool or an agent's call) or an ad-hoc call through the API. */
export type ToolCallSource = 'run' | 'adhoc';

/**
 * One MCP tool call, for usage figures (GET /toolsets/:id/usage): who, when, how long, how it
 * ended. Small and flat so the database can group and sort it; no arguments or results (those
 * are in the run log, redacted). `errorCode` is absent for a call that succeeded; an `isError`
 * result counts as `MCP_TOOL_ERROR`.
 */
export interface ToolCallDoc {
  _id: Types.ObjectId;
  toolsetId: string;
  tool: string;
  at: Date;
  durationMs: number;
  errorCode?: string;
  source: ToolCallSource;
  runId?: string;
}

export const ToolCallSchema = new Schema<ToolCallDoc>(
  {
    toolsetId: { type: String, required: true },
    tool: { type: String, required: true },
    at: { type: Date, required: true },
    durationMs: { type: Number, required: true },
    errorCode: { type: String },
    source: { type: String, required: true, enum: ['run', 'adhoc'] },
    runId: { type: String },
  },
  { collection: TOOL_CALLS_COLLECTION, versionKey: false },
);
ToolCallSchema.index({ toolsetId: 1, at: 1 });
// Retention reads the oldest calls first (TOOL_CALL_RETENTION_MAX_AGE).
ToolCallSchema.index({ at: 1 });
ToolCallSchema.index({ toolsetId: 1, tool: 1, durationMs: 1 });
