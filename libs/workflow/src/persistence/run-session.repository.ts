import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model, type mongo } from 'mongoose';
import { isDuplicateKeyError } from './mongo-errors.js';
import { RUN_MCP_SESSION_MODEL, type RunMcpSession, type RunMcpSessionRecordDoc } from './run-session.schema.js';

export type { RunMcpSession } from './run-session.schema.js';

const recordId = (runId: string, sessionId: string): string => `${runId}:${sessionId}`;

/**
 * The MCP sessions runs have open, one document each. Writes go by `_id` alone (the one filter
 * FerretDB v1 hands to SQLite); listing a run's sessions (by `runId`) is for recovery only.
 */
@Injectable()
export class RunSessionRepository {
  /** The driver's collection, typed with this `_id` (mongoose's own typing expects an ObjectId). */
  private readonly records: mongo.Collection<RunMcpSessionRecordDoc>;

  constructor(@InjectModel(RUN_MCP_SESSION_MODEL) readonly sessions: Model<RunMcpSessionRecordDoc>) {
    this.records = sessions.collection as unknown as mongo.Collection<RunMcpSessionRecordDoc>;
  }

  /** A session the run just opened; recording it again is a no-op. */
  async record(runId: string, { toolsetId, sessionId }: RunMcpSession): Promise<void> {
    try {
      const stored = { _id: recordId(runId, sessionId), runId: new Types.ObjectId(runId), toolsetId, sessionId, createdAt: new Date() };
      await this.records.insertOne(stored);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /** The sessions on record for a run, oldest first. */
  async list(runId: string): Promise<RunMcpSession[]> {
    const records = await this.sessions
      .find({ runId: new Types.ObjectId(runId) }, { _id: 0, toolsetId: 1, sessionId: 1 })
      .sort({ createdAt: 1 })
      .lean();
    return records.map(({ toolsetId, sessionId }) => ({ toolsetId, sessionId }));
  }

  /** Removes these records (sessions ended, or given up on); ones already gone are no error. */
  async forget(runId: string, sessions: RunMcpSession[]): Promise<void> {
    await Promise.all(sessions.map(({ sessionId }) => this.records.deleteOne({ _id: recordId(runId, sessionId) })));
  }
}
