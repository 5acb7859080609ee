import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Types, type Model, type mongo } from 'mongoose';
import type { ExecutionRecord, RunStore } from '../engine/run-store.js';
import { fromJsonText, toJsonText } from './json-field.js';
import { isDuplicateKeyError } from './mongo-errors.js';
import { NODE_EXECUTION_MODEL, type NodeExecutionDoc } from './node-execution.schema.js';
import type { RunDoc } from './run.schema.js';

/** A node execution as the log shows it: everything but the full state kept for resume. */
export type LoggedExecutionDoc = Omit<NodeExecutionDoc, 'state'>;

const WITHOUT_STATE = { state: 0 } as const;

/** Two workers wrote the same run (see saveExecution); the one that gets this stops. */
export class ExecutionConflictError extends Error {
  readonly code = 'RUN_STORE_CONFLICT';
  override readonly name = 'ExecutionConflictError';
}

/**
 * A record's `_id`: `<runId>:<seq>`. Known without a query, so that looking a record up or
 * replacing it is a filter on `_id` alone (the only one FerretDB v1 hands to SQLite), and the
 * primary key itself refuses a second record at the same seq.
 */
export function executionId(runId: string, seq: number): string {
  return `${runId}:${seq}`;
}

function toDoc(record: ExecutionRecord): NodeExecutionDoc {
  return {
    _id: executionId(record.runId, record.seq),
    runId: new Types.ObjectId(record.runId),
    seq: record.seq,
    nodeId: record.nodeId,
    type: record.type,
    ...(record.name !== undefined && { name: record.name }),
    status: record.status,
    attempt: record.attempt,
    startedAt: new Date(record.startedAt),
    finishedAt: new Date(record.finishedAt),
    durationMs: record.durationMs,
    inputs: toJsonText(record.inputs),
    ...(record.inputsTruncated && { inputsTruncated: true }),
    outputs: toJsonText(record.outputs),
    ...(record.truncated && { truncated: true }),
    ...(record.error && { error: { code: record.error.code, message: record.error.message } }),
    ...(record.details && { details: toJsonText(record.details) }),
    activeHandles: record.activeHandles,
    ...(record.state && { state: toJsonText(record.state.outputs) }),
    ...(record.stateTooLarge && { stateTooLarge: true }),
  };
}

export function toExecutionRecord(doc: NodeExecutionDoc): ExecutionRecord {
  const record: ExecutionRecord = {
    runId: String(doc.runId),
    seq: doc.seq,
    nodeId: doc.nodeId,
    type: doc.type,
    status: doc.status,
    attempt: doc.attempt,
    startedAt: doc.startedAt.getTime(),
    finishedAt: doc.finishedAt.getTime(),
    durationMs: doc.durationMs,
    inputs: fromJsonText(doc.inputs, {}),
    outputs: fromJsonText(doc.outputs, {}),
    activeHandles: doc.activeHandles ?? [],
  };
  if (doc.name !== undefined) record.name = doc.name;
  if (doc.inputsTruncated) record.inputsTruncated = true;
  if (doc.truncated) record.truncated = true;
  if (doc.error) record.error = { code: doc.error.code, message: doc.error.message };
  if (doc.details !== undefined) record.details = fromJsonText(doc.details, {});
  if (doc.state !== undefined) record.state = { outputs: fromJsonText(doc.state, {}) };
  if (doc.stateTooLarge) record.stateTooLarge = true;
  return record;
}

/** The records a run's terminal write carried (the deferred ones not written before it). */
export function finalExecutions(run: Pick<RunDoc, 'finalExecutions'>): ExecutionRecord[] {
  return fromJsonText<ExecutionRecord[]>(run.finalExecutions, []);
}

/** What the run document keeps of records: the log, not the state for resume (a finished run is not resumed). */
export function toFinalExecutions(records: readonly ExecutionRecord[]): string {
  return toJsonText(records.map(({ state: _state, ...logged }) => logged));
}

/**
 * `node_executions`: the engine's RunStore port on MongoDB (one document per finished node,
 * written before anything downstream starts) and the log reads of the API.
 */
@Injectable()
export class NodeExecutionRepository implements RunStore {
  constructor(@InjectModel(NODE_EXECUTION_MODEL) readonly executions: Model<NodeExecutionDoc>) {}

  async loadExecutions(runId: string): Promise<ExecutionRecord[]> {
    const docs = await this.executions.find({ runId }).sort({ seq: 1 }).lean();
    return docs.map(toExecutionRecord);
  }

  /**
   * The port's contract is that saving an existing `(runId, seq)` overwrites it: a retried write
   * of the same record. Records are almost always new, so this inserts and replaces only on a
   * duplicate key (an upsert costs 10–25 inserts on FerretDB v1). A duplicate holding another
   * node means two workers hold the run (one lost its BullMQ lock): the save fails, which stops
   * that worker's engine, instead of overwriting the other's record. The replacement keeps the
   * stored `_id`, and finds the record by `(runId, seq)`: records written before `_id` was
   * `<runId>:<seq>` have an ObjectId (a run resumed across the upgrade).
   */
  async saveExecution(record: ExecutionRecord): Promise<void> {
    const doc = toDoc(record);
    // The driver's collection, typed with this `_id` (mongoose's own typing expects an ObjectId).
    const records = this.executions.collection as unknown as mongo.Collection<NodeExecutionDoc>;
    try {
      await records.insertOne({ ...doc });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const { _id, ...replacement } = doc;
      const replaced = await records.replaceOne({ runId: doc.runId, seq: doc.seq, nodeId: doc.nodeId }, replacement);
      if (replaced.matchedCount === 0) {
        throw new ExecutionConflictError(
          `run ${record.runId}: seq ${record.seq} already holds another node's execution (another worker holds the run)`,
        );
      }
    }
  }

  /**
   * Records in one insert: deferred ones riding on a durable one (one round trip). On a duplicate
   * (a retried write, or another worker), each goes through `saveExecution`, which settles it.
   */
  async saveExecutions(records: ExecutionRecord[]): Promise<void> {
    if (records.length === 1) return this.saveExecution(records[0]);
    const collection = this.executions.collection as unknown as mongo.Collection<NodeExecutionDoc>;
    try {
      await collection.insertMany(records.map(toDoc), { ordered: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      for (const record of records) await this.saveExecution(record);
    }
  }

  /**
   * A run's log after `afterSeq`, in order: `node_executions`, then the records its terminal
   * write carried (`finalExecutions` of the run document `run`, just read).
   */
  async logOf(run: RunDoc, afterSeq: number, limit?: number): Promise<ExecutionRecord[]> {
    const stored = (await this.logAfter(String(run._id), afterSeq, limit)).map(toExecutionRecord);
    const final = finalExecutions(run).filter((record) => record.seq > afterSeq);
    if (final.length === 0) return stored;
    const seen = new Set(stored.map((record) => record.seq));
    const merged = [...stored, ...final.filter((record) => !seen.has(record.seq))].sort((a, b) => a.seq - b.seq);
    return limit === undefined ? merged : merged.slice(0, limit);
  }

  /** Log items after `afterSeq`, in order. */
  async logAfter(runId: string, afterSeq: number, limit?: number): Promise<LoggedExecutionDoc[]> {
    if (!isValidObjectId(runId)) return [];
    const query = this.executions.find({ runId, seq: { $gt: afterSeq } }, WITHOUT_STATE).sort({ seq: 1 });
    if (limit !== undefined) query.limit(limit);
    return query.lean();
  }
}
