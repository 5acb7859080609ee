import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Types, type Model, type mongo } from 'mongoose';
import type { ExecutionRecord, RunStore } from '../engine/run-store.js';
import { fromJsonText, toJsonText } from './json-field.js';
import { isDuplicateKeyError } from './mongo-errors.js';
import { NODE_EXECUTION_MODEL, type NodeExecutionDoc } from './node-execution.schema.js';
import type { RunRecord } from './run-record.js';

/** A node execution as the log shows it: everything but the full state kept for resume. */
export type LoggedExecutionDoc = Omit<NodeExecutionDoc, 'state'>;

const WITHOUT_STATE = { state: 0 } as const;

/** Two workers wrote the same run (see saveExecution); the one that gets this stops. */
export class ExecutionConflictError extends Error {
  readonly code = 'RUN_STORE_CONFLICT';
  override readonly name = 'ExecutionConflictError';
}

/**
 * A record's `_id`: `<runId>:<slot>`, its place in the run's journal (run-journal.ts), where the
 * primary key itself refuses a second document at one slot. Written outside a claim (benchmarks),
 * the slot is the seq.
 */
export function toExecutionDoc(record: ExecutionRecord, slot = record.seq, epoch?: number): NodeExecutionDoc {
  return {
    _id: `${record.runId}:${slot}`,
    runId: new Types.ObjectId(record.runId),
    slot,
    ...(epoch !== undefined && { epoch }),
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

  /** The node records (not the journal's markers, whose seq is negative). */
  async loadExecutions(runId: string): Promise<ExecutionRecord[]> {
    const docs = await this.executions
      .find({ runId, seq: { $gt: 0 } })
      .sort({ seq: 1 })
      .lean();
    return docs.map(toExecutionRecord);
  }

  /**
   * Records written outside a claim (benchmarks, tests): inserted, never replaced. A record already
   * at that place means another writer holds the run: the save fails. Workers write through a
   * claim's RunJournal instead, which fences the writes of a claim that lost the run.
   */
  async saveExecution(record: ExecutionRecord): Promise<void> {
    return this.saveExecutions([record]);
  }

  async saveExecutions(records: ExecutionRecord[]): Promise<void> {
    const collection = this.executions.collection as unknown as mongo.Collection<NodeExecutionDoc>;
    try {
      await collection.insertMany(
        records.map((record) => toExecutionDoc(record)),
        { ordered: true },
      );
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      throw new ExecutionConflictError(`run ${records[0]?.runId}: a record is already stored there (another worker holds the run)`);
    }
  }

  /**
   * A run's log after `afterSeq`, in order: `node_executions`, then the records its terminal
   * write carried (`finalExecutions` of the run `run`, just read).
   */
  async logOf(run: RunRecord, afterSeq: number, limit?: number): Promise<ExecutionRecord[]> {
    const stored = (await this.logAfter(run.id, afterSeq, limit)).map(toExecutionRecord);
    const final = run.finalExecutions().filter((record) => record.seq > afterSeq);
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
