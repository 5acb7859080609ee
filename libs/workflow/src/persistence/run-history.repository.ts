import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Types, type Model, type mongo } from 'mongoose';
import { NODE_EXECUTION_MODEL, type NodeExecutionDoc } from './node-execution.schema.js';
import { RUN_MCP_SESSION_MODEL, type RunMcpSessionRecordDoc } from './run-session.schema.js';
import { FINISHED_RUN_STATUSES, isFinishedRunStatus, type RunStatus } from '../engine/statuses.js';
import { RUN_MODEL, type RunDoc } from './run.schema.js';

/** Whichever limit is reached first prunes a run; 0 = no limit on that side. */
export interface RetentionPolicy {
  maxAgeMs: number;
  maxCount: number;
}

export interface PruneOptions {
  /** Runs removed per batch (each batch: two reads, then deletes by `_id`). */
  batchSize?: number;
  /** A pass stops after this long and says it is not complete; the next pass goes on. */
  budgetMs?: number;
  now?: Date;
}

export interface PruneResult {
  byAge: number;
  byCount: number;
  /** False when the pass ran out of budget with more to prune. */
  complete: boolean;
}

export type DeleteRunOutcome = { deleted: true } | { deleted: false; status?: RunStatus };

const DEFAULT_BATCH = 100;
const DEFAULT_BUDGET_MS = 20_000;
/** `_id`s per `deleteMany`: small enough that one statement never holds the store for long. */
const DELETE_CHUNK = 200;

async function deleteByIds<T extends { _id: string | Types.ObjectId }>(collection: mongo.Collection<T>, ids: T['_id'][]): Promise<void> {
  for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
    await collection.deleteMany({ _id: { $in: ids.slice(i, i + DELETE_CHUNK) } } as mongo.Filter<T>);
  }
}

/**
 * Removing finished runs with everything that hangs off them: node executions, MCP session
 * records (the idempotency key lives on the run document). Only runs whose status is one a run
 * never leaves are touched, so whatever else a run may be (queued, running, waiting…) is safe by
 * construction. Children go first: a pass cut short leaves a run with fewer records, never a
 * record without its run, and the next pass finishes the job. Deletes go by `_id` (FerretDB v1
 * hands only that filter to its backend); the reads that find the ids are one per batch.
 */
@Injectable()
export class RunHistoryRepository {
  private readonly executionRecords: mongo.Collection<NodeExecutionDoc>;
  private readonly sessionRecords: mongo.Collection<RunMcpSessionRecordDoc>;

  constructor(
    @InjectModel(RUN_MODEL) private readonly runs: Model<RunDoc>,
    @InjectModel(NODE_EXECUTION_MODEL) executions: Model<NodeExecutionDoc>,
    @InjectModel(RUN_MCP_SESSION_MODEL) sessions: Model<RunMcpSessionRecordDoc>,
  ) {
    // The driver's collections, typed with their string `_id`s (mongoose's typing expects ObjectIds).
    this.executionRecords = executions.collection as unknown as mongo.Collection<NodeExecutionDoc>;
    this.sessionRecords = sessions.collection as unknown as mongo.Collection<RunMcpSessionRecordDoc>;
  }

  /** `DELETE /runs/:id`: a finished run goes with its records; an unfinished one stays (its status is returned). */
  async deleteFinished(id: string): Promise<DeleteRunOutcome> {
    if (!isValidObjectId(id)) return { deleted: false };
    const run = await this.runs.findById(id, { status: 1 }).lean();
    if (!run) return { deleted: false };
    if (!isFinishedRunStatus(run.status)) return { deleted: false, status: run.status };
    await this.purge([run._id]);
    return { deleted: true };
  }

  /** One retention pass: by age, then by count, in bounded batches. */
  async prune(policy: RetentionPolicy, options: PruneOptions = {}): Promise<PruneResult> {
    const batchSize = options.batchSize ?? DEFAULT_BATCH;
    const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
    const result: PruneResult = { byAge: 0, byCount: 0, complete: true };
    if (policy.maxAgeMs > 0) {
      const cutoff = new Date((options.now ?? new Date()).getTime() - policy.maxAgeMs);
      for (;;) {
        if (Date.now() > deadline) return { ...result, complete: false };
        const ids = await this.oldestFinished(batchSize, cutoff);
        result.byAge += await this.purge(ids);
        if (ids.length < batchSize) break;
      }
    }
    if (policy.maxCount > 0) {
      let excess = (await this.runs.countDocuments({ status: { $in: FINISHED_RUN_STATUSES } })) - policy.maxCount;
      while (excess > 0) {
        if (Date.now() > deadline) return { ...result, complete: false };
        const ids = await this.oldestFinished(Math.min(excess, batchSize));
        if (ids.length === 0) break;
        result.byCount += await this.purge(ids);
        excess -= ids.length;
      }
    }
    return result;
  }

  /** The finished runs that finished first (before `cutoff` when given). */
  private async oldestFinished(limit: number, cutoff?: Date): Promise<Types.ObjectId[]> {
    const filter = { status: { $in: FINISHED_RUN_STATUSES }, ...(cutoff && { finishedAt: { $lt: cutoff } }) };
    const docs = await this.runs.find(filter, { _id: 1 }).sort({ finishedAt: 1, _id: 1 }).limit(limit).lean();
    return docs.map((doc) => doc._id);
  }

  /** Removes these (finished) runs and their records; returns how many runs went. */
  private async purge(runIds: Types.ObjectId[]): Promise<number> {
    if (runIds.length === 0) return 0;
    const byRun = { runId: { $in: runIds } };
    const [executions, sessions] = await Promise.all([
      this.executionRecords.find(byRun, { projection: { _id: 1 } }).toArray(),
      this.sessionRecords.find(byRun, { projection: { _id: 1 } }).toArray(),
    ]);
    await deleteByIds(
      this.executionRecords,
      executions.map((doc) => doc._id),
    );
    await deleteByIds(
      this.sessionRecords,
      sessions.map((doc) => doc._id),
    );
    const removed = await this.runs.deleteMany({ _id: { $in: runIds }, status: { $in: FINISHED_RUN_STATUSES } });
    return removed.deletedCount;
  }
}
