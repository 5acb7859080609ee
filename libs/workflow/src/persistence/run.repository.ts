import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Types, type Model, type UpdateQuery } from 'mongoose';
import { ENGINE_ERROR_CODES } from '../engine/errors.js';
import type { RunError } from '../engine/run-events.js';
import { GuardedUpdates } from './guarded-update.js';
import { toJsonText } from './json-field.js';
import { isDuplicateKeyError } from './mongo-errors.js';
import { findPage, type Page, type PageRequest } from './paging.js';
import { ACTIVE_RUN_STATUSES, isActiveRunStatus, type RunStatus } from '../engine/statuses.js';
import { newRunDoc, terminalFields, toRunRecord, type NewRun, type RunCompletion } from './run-documents.js';
import type { RunInputRequest, RunNodeCounts, RunRecord } from './run-record.js';
import { RUN_MODEL, type RunDoc } from './run.schema.js';

/** What the worker stores when the run pauses for input. */
export interface RunPause {
  inputRequest: RunInputRequest;
  /** Sealed RunInputState. */
  inputState: string;
  stats: RunNodeCounts;
}

export type InsertRunResult = { created: true; run: RunRecord } | { created: false; run: RunRecord };

function recordOrNone(doc: RunDoc | null | undefined): RunRecord | undefined {
  return doc ? toRunRecord(doc) : undefined;
}

/** What puts a run the claim should not have taken (terminal by then) back as it was. */
function undoClaim(was: RunDoc): UpdateQuery<RunDoc> {
  const restore = {
    status: was.status,
    checkedAt: was.checkedAt,
    claims: was.claims,
    ...(was.startedAt && { startedAt: was.startedAt }),
    ...(was.lease !== undefined && { lease: was.lease }),
  };
  const unset = { ...(!was.startedAt && { startedAt: 1 }), ...(was.lease === undefined && { lease: 1 }) };
  return { $set: restore, ...(Object.keys(unset).length > 0 && { $unset: unset }) };
}

/**
 * The run documents and their state machine, each transition one guarded single-document
 * update: queued → running (claim), running → terminal (finish, lease required),
 * queued → canceled, active → failed (sweep). A transition whose guard fails returns undefined.
 * How the store enforces a guard: guarded-update.ts.
 */
@Injectable()
export class RunRepository {
  private readonly guarded: GuardedUpdates<RunDoc>;

  constructor(@InjectModel(RUN_MODEL) private readonly runs: Model<RunDoc>) {
    this.guarded = new GuardedUpdates(runs);
  }

  /** Runs newest first, optionally of one workflow and/or in one status. */
  /** `workflowIds` narrows to those workflows (a workflow-limited API key); with `workflowId` too, both must hold. */
  page(
    filter: { workflowId?: string; workflowIds?: readonly string[]; status?: RunStatus; triggeredBy?: string; parentRunId?: string },
    page: PageRequest,
  ): Promise<Page<RunRecord>> {
    const workflowIds =
      filter.workflowIds && (filter.workflowId ? filter.workflowIds.filter((id) => id === filter.workflowId) : filter.workflowIds);
    const query = {
      ...(filter.workflowId && { workflowId: filter.workflowId }),
      ...(workflowIds && { workflowId: { $in: [...workflowIds] } }),
      ...(filter.status && { status: filter.status }),
      ...(filter.triggeredBy && { triggeredBy: filter.triggeredBy }),
      ...(filter.parentRunId && { parentRunId: new Types.ObjectId(filter.parentRunId) }),
    };
    return findPage(this.runs, query, page, (doc) => toRunRecord(doc));
  }

  /** Inserts a queued run; with an idempotency key already used for this workflow, returns that run instead. */
  async insert(input: NewRun): Promise<InsertRunResult> {
    const idempotencyScope = input.idempotencyKey === undefined ? undefined : `${input.workflowId}:${input.idempotencyKey}`;
    // Built and inserted as is, without a mongoose document (its casting and validation cost CPU on every run).
    const run = newRunDoc(input, idempotencyScope, new Date());
    try {
      await this.runs.collection.insertOne({ ...run });
      return { created: true, run: toRunRecord(run, { inputs: input.inputs }) };
    } catch (error) {
      if (!isDuplicateKeyError(error) || !idempotencyScope) throw error;
      const existing = await this.runs.findOne({ idempotencyScope }).lean();
      if (!existing) throw error;
      return { created: false, run: toRunRecord(existing) };
    }
  }

  /** The run an idempotency key made (`<workflowId>:<key>`), if any. */
  async findByIdempotencyScope(idempotencyScope: string): Promise<RunRecord | undefined> {
    return recordOrNone(await this.runs.findOne({ idempotencyScope }).lean());
  }

  async findById(id: string): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    return recordOrNone(await this.runs.findById(id).lean());
  }

  async markEnqueued(id: string): Promise<void> {
    await this.runs.updateOne({ _id: id }, { $set: { enqueuedAt: new Date() } });
  }

  /**
   * A worker takes (or takes back, after a crash) an active run; undefined when it is terminal or
   * gone. One round trip on every store (see GuardedUpdates.applyFirst): a worker is handed a
   * run it can take nearly always, and a terminal run shown `running` for a moment is harmless.
   */
  async claim(id: string, lease: string): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const now = new Date();
    const before = await this.guarded.applyFirst(
      new Types.ObjectId(id),
      { status: { $in: ACTIVE_RUN_STATUSES } },
      { $set: { status: 'running', lease, checkedAt: now }, $min: { startedAt: now }, $inc: { claims: 1 } },
      undoClaim,
    );
    if (!before) return undefined;
    const startedAt = before.startedAt && before.startedAt < now ? before.startedAt : now;
    return toRunRecord({ ...before, status: 'running', lease, checkedAt: now, startedAt, claims: before.claims + 1 });
  }

  /**
   * Terminal update by the worker that holds the lease; undefined if another attempt took the run
   * over. The worker closes the run's MCP pool first: `after` is that close, which the write waits
   * for (and the lease check may overlap).
   */
  async finish(run: RunRecord, lease: string, completion: RunCompletion, after?: Promise<unknown>): Promise<RunRecord | undefined> {
    const update = { $set: terminalFields(run, completion), $unset: { lease: 1 } };
    const doc = await this.guarded.apply(new Types.ObjectId(run.id), { lease, status: 'running' }, update, { after });
    return doc && toRunRecord(doc, { inputs: run.inputs });
  }

  /** running → waiting, by the worker that holds the lease (its MCP pool closed first: `after`); no worker holds it then. */
  async pause(run: RunRecord, lease: string, pause: RunPause, after?: Promise<unknown>): Promise<RunRecord | undefined> {
    const { authorization } = pause.inputRequest;
    const inputRequest = {
      ...pause.inputRequest,
      requestedSchema: toJsonText(pause.inputRequest.requestedSchema),
      ...(authorization && { authorization: toJsonText(authorization) }),
    };
    const update = { $set: { status: 'waiting', ...pause, inputRequest }, $unset: { lease: 1 } };
    const doc = await this.guarded.apply(new Types.ObjectId(run.id), { lease, status: 'running' }, update, { after });
    return doc && toRunRecord(doc, { inputs: run.inputs, inputRequest: pause.inputRequest });
  }

  /**
   * waiting → queued with the answer stored (`inputState`, sealed by the caller) for the request
   * the caller read (`claims` guards it like a version number). The claim count restarts at one
   * (a run may pause many times; the bound is on crashes), so the next claim still reads the
   * executions already stored.
   */
  async answerInput(known: RunRecord, inputState: string): Promise<RunRecord | undefined> {
    const now = new Date();
    const doc = await this.guarded.apply(
      new Types.ObjectId(known.id),
      { status: 'waiting', claims: known.claims },
      { $set: { status: 'queued', inputState, resumedAt: now, checkedAt: now, claims: 1 }, $unset: { inputRequest: 1 } },
    );
    return doc && toRunRecord(doc, { inputs: known.inputs });
  }

  /**
   * waiting → queued when its scheduled resume has come (an approval's timeout, a wait's end);
   * undefined when the run was answered, canceled or paused again for a later time meanwhile.
   */
  async wake(id: string, now = new Date()): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const current = await this.runs.findById(id).lean();
    const resumeAt = current?.status === 'waiting' ? current.inputRequest?.resumeAt : undefined;
    if (!current || !resumeAt || resumeAt > now) return undefined;
    return this.requeueWaiting(current, now);
  }

  /**
   * waiting → queued now, if the run still waits on `nodeId` (a sub-workflow's parent, its child
   * ended), or on anything when `nodeId` is undefined; else undefined.
   */
  async resumeWaitingOn(id: string, nodeId: string | undefined, now = new Date()): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const current = await this.runs.findById(id).lean();
    if (!current || current.status !== 'waiting' || (nodeId !== undefined && current.inputRequest?.nodeId !== nodeId)) return undefined;
    return this.requeueWaiting(current, now);
  }

  /** waiting → queued of the run just read (`claims` guards it like a version number). */
  private async requeueWaiting(current: RunDoc, now: Date): Promise<RunRecord | undefined> {
    return recordOrNone(
      await this.guarded.apply(
        current._id,
        { status: 'waiting', claims: current.claims },
        { $set: { status: 'queued', resumedAt: now, checkedAt: now, claims: 1 }, $unset: { inputRequest: 1 } },
        { known: current },
      ),
    );
  }

  /** The runs `workflow` nodes of this run started that have not ended (a cancel of the parent cancels them). */
  async activeChildren(id: string): Promise<RunRecord[]> {
    if (!isValidObjectId(id)) return [];
    const docs = await this.runs.find({ parentRunId: new Types.ObjectId(id), status: { $in: [...ACTIVE_RUN_STATUSES, 'waiting'] } }).lean();
    return docs.map((doc) => toRunRecord(doc));
  }

  /** Cancel of a waiting run: no worker holds it, it ends at once. */
  async cancelWaiting(id: string, message = 'the run was canceled while it waited for input'): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const current = await this.runs.findById(id).lean();
    if (!current || current.status !== 'waiting') return undefined;
    const error = { code: ENGINE_ERROR_CODES.runCanceled, message };
    const fields = terminalFields(current, { status: 'canceled', error, finishedAt: new Date() });
    return recordOrNone(
      await this.guarded.apply(
        current._id,
        { status: 'waiting', claims: current.claims },
        { $set: { ...fields, cancelRequestedAt: fields.finishedAt }, $unset: { inputRequest: 1 } },
        { known: current },
      ),
    );
  }

  /** Gives the run back (worker shutting down, its MCP pool closed): still `running`, resumed by the next claim. */
  async release(id: string, lease: string): Promise<void> {
    await this.guarded.apply(new Types.ObjectId(id), { lease }, { $unset: { lease: 1 } });
  }

  /** Cancel of a run no worker has taken yet: it ends at once. */
  async cancelQueued(id: string, message = 'the run was canceled before it started'): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const now = new Date();
    const error = { code: ENGINE_ERROR_CODES.runCanceled, message };
    return recordOrNone(
      await this.guarded.apply(
        new Types.ObjectId(id),
        { status: 'queued' },
        { $set: { status: 'canceled', finishedAt: now, durationMs: 0, error, cancelRequestedAt: now } },
      ),
    );
  }

  /** Cancel of a running run: recorded here, carried to its worker over Redis. */
  async requestCancel(id: string): Promise<RunRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    return recordOrNone(
      await this.guarded.apply(new Types.ObjectId(id), { status: 'running' }, { $min: { cancelRequestedAt: new Date() } }),
    );
  }

  /** Ends an active run without a lease (its worker is gone: recovery gave up or the deadline passed). */
  async failActive(id: string, error: RunError): Promise<RunRecord | undefined> {
    // By `_id` alone (guarded-update.ts), then `claims` guards the write like a version number.
    const current = await this.runs.findById(id).lean();
    if (!current || !isActiveRunStatus(current.status)) return undefined;
    const fields = terminalFields(current, { status: 'failed', error, finishedAt: new Date() });
    return recordOrNone(
      await this.guarded.apply(
        current._id,
        { status: current.status, claims: current.claims },
        { $set: fields, $unset: { lease: 1 } },
        { known: current },
      ),
    );
  }

  /**
   * Active runs the sweep has not confirmed since `before`, oldest first. One query per status:
   * FerretDB v1 hands an equality to PostgreSQL but decodes the whole collection in Go for `$in`
   * (≈ 1 s at 10,000 runs, on every sweep of every worker, measured by bench:scale's probe).
   */
  async unconfirmedActive(before: Date, limit: number): Promise<RunRecord[]> {
    const byStatus = await Promise.all(
      ACTIVE_RUN_STATUSES.map((status) =>
        this.runs
          .find({ status, checkedAt: { $lt: before } })
          .sort({ checkedAt: 1 })
          .limit(limit)
          .lean(),
      ),
    );
    return byStatus
      .flat()
      .sort((a, b) => a.checkedAt.getTime() - b.checkedAt.getTime())
      .slice(0, limit)
      .map((doc) => toRunRecord(doc));
  }

  /**
   * Waiting runs whose scheduled resume (a wait's end, an approval's timeout) was due before
   * `before` and has not woken them: their delayed job may be gone (Redis restarted without its
   * data, or unreachable when the run paused). Soonest due first. The status by equality, which
   * FerretDB v1 hands to PostgreSQL; the time is compared over the waiting runs only.
   */
  async overdueWaits(before: Date, limit: number): Promise<RunRecord[]> {
    const docs = await this.runs
      .find({ status: 'waiting', 'inputRequest.resumeAt': { $lt: before } })
      .sort({ 'inputRequest.resumeAt': 1 })
      .limit(limit)
      .lean();
    return docs.map((doc) => toRunRecord(doc));
  }

  async confirm(id: string): Promise<void> {
    await this.runs.updateOne({ _id: new Types.ObjectId(id) }, { $set: { checkedAt: new Date() } });
  }

  /**
   * Of these run ids (runs a worker holds), those whose cancel was requested (a backstop for a
   * missed Redis message). Asked of the running runs by status, an equality FerretDB v1 hands to
   * PostgreSQL; `_id: {$in}` made it decode the whole collection (≈ 1 s at 10,000 runs, every sweep).
   */
  async cancelRequested(ids: string[]): Promise<string[]> {
    const held = new Set(ids.filter((id) => isValidObjectId(id)));
    if (held.size === 0) return [];
    const docs = await this.runs.find({ status: 'running', cancelRequestedAt: { $exists: true } }, { _id: 1 }).lean();
    return docs.map((doc) => String(doc._id)).filter((id) => held.has(id));
  }
}
