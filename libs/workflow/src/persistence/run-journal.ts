import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model, type mongo } from 'mongoose';
import { ENGINE_ERROR_CODES } from '../engine/errors.js';
import type { ExecutionRecord } from '../engine/run-store.js';
import { fromJsonText, toJsonText } from './json-field.js';
import { isDuplicateKeyError } from './mongo-errors.js';
import { toExecutionDoc, toExecutionRecord } from './node-execution.repository.js';
import { NODE_EXECUTION_MODEL, type NodeExecutionDoc } from './node-execution.schema.js';
import type { RunCompletion } from './run-documents.js';

/** What a marker says: a claim began, a tool call is about to be sent, the run paused, the run ended. */
export type JournalMarkerKind = 'claim' | 'call' | 'pause' | 'end';

/**
 * A marker in `node_executions`, beside the node records, in the same slot sequence. Its `seq` is
 * `-slot`: the log's reads (`seq > cursor ≥ 0`) never see it, and the `(runId, seq)` index stays unique.
 */
export interface JournalMarkerDoc {
  _id: string;
  runId: Types.ObjectId;
  slot: number;
  seq: number;
  epoch: number;
  marker: JournalMarkerKind;
  at: Date;
  /** `call`: the calling node and the idempotency key the MCP request carries. */
  nodeId?: string;
  key?: string;
  /** `end`: the terminal write, as JSON text (RunCompletion), so a later claim can finish the run from it. */
  completion?: string;
}

type JournalDoc = (NodeExecutionDoc & { marker?: undefined }) | JournalMarkerDoc;

/** The execution lost its claim: a later claim took the run, and the store refused this write. */
export class StaleClaimError extends Error {
  readonly code = ENGINE_ERROR_CODES.runClaimStale;
  override readonly name = 'StaleClaimError';
}

/** Claims in a row that a concurrent writer may beat before this one gives up (each beaten claim re-reads the journal). */
const CLAIM_TRIES = 20;

function slotOf(doc: { slot?: number; seq: number }): number {
  return doc.slot ?? doc.seq;
}

function storedCompletion(text: string): RunCompletion {
  const parsed = fromJsonText<RunCompletion & { finishedAt: string }>(text, {} as RunCompletion & { finishedAt: string });
  return { ...parsed, finishedAt: new Date(parsed.finishedAt) };
}

/**
 * One claim of a run, fenced by the store (docs/reliability.md). Everything an execution writes
 * about a run's progress — node records, `call` markers before a tool call is sent, the pause and
 * the end — is an insert at the next slot of the run's journal, `_id = <runId>:<slot>`. A claim is
 * itself an insert at the slot after the last one it read. Both MongoDB and FerretDB v1 (a
 * PostgreSQL primary key) refuse a second document with one `_id` atomically, so of two writers
 * aiming at one slot exactly one wins; and as every writer appends at the slot after the last it
 * knows, once a claim has landed at slot `c` no earlier claim can ever write again: its next
 * slot is at most `c`, which is taken. The loser gets StaleClaimError and stops. No update is
 * involved, so FerretDB v1's read-modify-write of whole documents cannot lose anything here.
 */
export class RunJournal {
  private nextSlot: number;
  private writes: Promise<unknown> = Promise.resolve();
  private broken?: Error;
  private readonly visits = new Map<string, number>();

  private constructor(
    private readonly collection: mongo.Collection<JournalDoc>,
    readonly runId: string,
    /** The slot of this claim's own marker: its epoch. */
    readonly epoch: number,
    /** Node records found when the claim landed (earlier claims' progress). */
    readonly records: ExecutionRecord[],
    /** `call` markers of earlier claims, by key. */
    private readonly earlierCalls: ReadonlySet<string>,
    /** An earlier claim's terminal write, when it reached the journal. */
    readonly ended: RunCompletion | undefined,
  ) {
    this.nextSlot = epoch + 1;
    for (const record of records) this.countVisit(record);
  }

  /**
   * Claims the run's journal. `first`: the run document says no claim came before, so the claim
   * tries slot 1 without reading (a wrong guess costs one refused insert and a read).
   */
  static async claim(executions: Model<NodeExecutionDoc>, runId: string, first: boolean): Promise<RunJournal> {
    // The driver's collection: inserts as built, without mongoose's casting (and `_id` typed as a string).
    const journal = executions.collection as unknown as mongo.Collection<JournalDoc>;
    const runObjectId = new Types.ObjectId(runId);
    let docs: JournalDoc[] = [];
    let read = !first;
    for (let tries = 0; tries < CLAIM_TRIES; tries += 1) {
      if (read) docs = (await journal.find({ runId: runObjectId }).toArray()) as JournalDoc[];
      read = true;
      const slot = docs.reduce((last, doc) => Math.max(last, slotOf(doc)), 0) + 1;
      try {
        await journal.insertOne(markerDoc(runObjectId, slot, slot, 'claim'));
      } catch (error) {
        if (isDuplicateKeyError(error)) continue;
        throw error;
      }
      return RunJournal.fromDocs(journal, runId, slot, docs);
    }
    throw new StaleClaimError(`run ${runId}: ${CLAIM_TRIES} claims in a row were beaten by other writers`);
  }

  private static fromDocs(collection: mongo.Collection<JournalDoc>, runId: string, epoch: number, docs: JournalDoc[]): RunJournal {
    const ordered = [...docs].sort((a, b) => slotOf(a) - slotOf(b));
    const records: ExecutionRecord[] = [];
    const calls = new Set<string>();
    let ended: RunCompletion | undefined;
    for (const doc of ordered) {
      if (doc.marker === undefined) records.push(toExecutionRecord(doc));
      else if (doc.marker === 'call' && doc.key !== undefined) calls.add(doc.key);
      else if (doc.marker === 'end' && doc.completion !== undefined) ended = storedCompletion(doc.completion);
    }
    return new RunJournal(collection, runId, epoch, records, calls, ended);
  }

  /** The idempotency key of the node's next tool call: the same for its retries and for a takeover's resend. */
  callKey(nodeId: string): string {
    return `${this.runId}:${nodeId}:${(this.visits.get(nodeId) ?? 0) + 1}`;
  }

  /** An earlier claim recorded this call as about to be sent and left no record of its outcome. */
  inDoubt(nodeId: string): boolean {
    return this.earlierCalls.has(this.callKey(nodeId));
  }

  /** Node records (deferred ones with a durable one), in order. */
  appendRecords(records: readonly ExecutionRecord[]): Promise<void> {
    return this.append(() => this.recordDocs(records));
  }

  /**
   * Before a tool call is sent: a takeover that finds this without the node's record knows the
   * call is in doubt. `records`: deferred ones that ride along (one insert).
   */
  markCall(nodeId: string, key: string, records: readonly ExecutionRecord[] = []): Promise<void> {
    return this.append(() => [...this.recordDocs(records), { ...this.marker('call'), nodeId, key }]);
  }

  /** The run pauses (the records of the pause ride along): an earlier claim cannot pause it any more. */
  markPause(records: readonly ExecutionRecord[]): Promise<void> {
    return this.append(() => [...this.recordDocs(records), this.marker('pause')]);
  }

  /** The terminal write, first in the journal: a claim landing after it finishes the run from it instead of executing it. */
  markEnd(completion: RunCompletion): Promise<void> {
    return this.append(() => [{ ...this.marker('end'), completion: toJsonText(completion) }]);
  }

  private recordDocs(records: readonly ExecutionRecord[]): NodeExecutionDoc[] {
    for (const record of records) this.countVisit(record);
    return records.map((record) => toExecutionDoc(record, this.takeSlot(), this.epoch));
  }

  private marker(kind: JournalMarkerKind): JournalMarkerDoc {
    return markerDoc(new Types.ObjectId(this.runId), this.takeSlot(), this.epoch, kind);
  }

  private takeSlot(): number {
    const slot = this.nextSlot;
    this.nextSlot += 1;
    return slot;
  }

  private countVisit(record: ExecutionRecord): void {
    if (record.status !== 'skipped') this.visits.set(record.nodeId, (this.visits.get(record.nodeId) ?? 0) + 1);
  }

  /**
   * One write at a time, so slots land in order (a later slot landing first would let a claim read
   * past a gap). After any failure nothing more is written: an insert that failed for another
   * reason than a duplicate may still have landed, so this claim no longer knows its next slot.
   */
  private append(build: () => JournalDoc[]): Promise<void> {
    const write = this.writes.then(async () => {
      if (this.broken) throw this.broken;
      const docs = build();
      try {
        await this.collection.insertMany(docs, { ordered: true });
      } catch (error) {
        this.broken = isDuplicateKeyError(error)
          ? new StaleClaimError(`run ${this.runId}: another claim took the run (claim ${this.epoch} is stale)`)
          : (error as Error);
        throw this.broken;
      }
    });
    this.writes = write.catch(() => undefined);
    return write;
  }
}

function markerDoc(runId: Types.ObjectId, slot: number, epoch: number, marker: JournalMarkerKind): JournalMarkerDoc {
  return { _id: `${String(runId)}:${slot}`, runId, slot, seq: -slot, epoch, marker, at: new Date() };
}

/** Where a worker claims a run's journal; the collection of node records stays inside persistence. */
@Injectable()
export class RunJournals {
  constructor(@InjectModel(NODE_EXECUTION_MODEL) private readonly executions: Model<NodeExecutionDoc>) {}

  /** See RunJournal.claim. */
  claim(runId: string, first: boolean): Promise<RunJournal> {
    return RunJournal.claim(this.executions, runId, first);
  }
}
