import { Schema, type Types } from 'mongoose';

export const RUN_MCP_SESSION_MODEL = 'RunMcpSession';

/**
 * A Streamable HTTP MCP session a run opened, recorded as soon as it is open so that, if the
 * worker dies, whoever takes the run next (or fails it) can end it. Which toolset's target reaches
 * it, never its URL or headers: the target is rebuilt from the toolset.
 */
export interface RunMcpSession {
  toolsetId: string;
  sessionId: string;
}

/**
 * One recorded session, in `run_mcp_sessions` and not on the run's document: a record is an
 * insert and a forget a delete by `_id`, so neither races the run's own updates (FerretDB v1
 * loses one of two concurrent updates to one document) nor scans `runs`.
 */
export interface RunMcpSessionRecordDoc extends RunMcpSession {
  /** `<runId>:<sessionId>`: recording a session twice hits the primary key. */
  _id: string;
  runId: Types.ObjectId;
  createdAt: Date;
}

export const RunMcpSessionSchema = new Schema<RunMcpSessionRecordDoc>(
  {
    _id: { type: String, required: true },
    runId: { type: Schema.Types.ObjectId, required: true },
    toolsetId: { type: String, required: true },
    sessionId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'run_mcp_sessions', versionKey: false },
);
// Read by run only after a crash or when a run is failed without its worker.
RunMcpSessionSchema.index({ runId: 1 });
