import { Inject, Injectable, Logger } from '@nestjs/common';
import { ChildRunRepository } from '../persistence/child-run.repository.js';
import type { RunRecord } from '../persistence/run-record.js';
import { RunRepository } from '../persistence/run.repository.js';
import { RunQueueProducer } from '../queue/run-queue-producer.js';
import { cascadeReason } from './cascade-reason.js';

/** What each app does around a cancel: the workers' cancel channel, and the `run.finished` event. */
export interface CancelSignals {
  /** Tells the worker holding the run (cancel channel); one that misses it reads `cancelRequestedAt` on its next sweep. */
  notifyWorkers(runId: string): Promise<void>;
  /** A run this cancel ended (it was queued or waiting). */
  finished(run: RunRecord): Promise<void>;
}

export const CANCEL_SIGNALS = Symbol('CANCEL_SIGNALS');

/**
 * - `canceled`: it was queued or waiting and ended here;
 * - `requested`: it is running, its worker stops it;
 * - `ended`: it had already ended (whatever its status);
 * - `missing`: no such run.
 */
export type CancelOutcome = { kind: 'canceled' | 'requested' | 'ended'; run: RunRecord } | { kind: 'missing' };

/**
 * The cancel of a run and the cascade to the runs its `workflow` nodes started (and theirs), for
 * the API's `POST /runs/:id/cancel` and the worker's end of a run that failed or was canceled.
 * Every step is a guarded write, so a cancel repeated (by the API, the worker, the sweep) changes
 * nothing the first did.
 */
@Injectable()
export class RunCancellation {
  private readonly logger = new Logger(RunCancellation.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly children: ChildRunRepository,
    private readonly queue: RunQueueProducer,
    @Inject(CANCEL_SIGNALS) private readonly signals: CancelSignals,
  ) {}

  /** One run; `message` is its `error.message` when it ends here (the store's default otherwise). */
  async cancel(runId: string, message?: string): Promise<CancelOutcome> {
    const queued = await this.runs.cancelQueued(runId, message);
    if (queued) {
      // The job, if any, would find the run terminal and do nothing; removing it is tidiness.
      await this.queue.removeJob(runId).catch(() => undefined);
      // On FerretDB v1 a worker's claim landing in the same milliseconds can still hold the run
      // (no atomic compare-and-set there, see guarded-update.ts): told now, it stops at once
      // instead of at its next sweep. No worker holds it otherwise, and the message is ignored.
      await this.signals.notifyWorkers(runId);
      await this.signals.finished(queued);
      return { kind: 'canceled', run: queued };
    }
    const running = await this.runs.requestCancel(runId);
    if (running) {
      await this.signals.notifyWorkers(runId);
      return { kind: 'requested', run: running };
    }
    const current = await this.runs.findById(runId);
    if (!current) return { kind: 'missing' };
    const waiting = current.status === 'waiting' ? await this.runs.cancelWaiting(runId, message) : undefined;
    if (waiting) {
      await this.signals.finished(waiting);
      return { kind: 'canceled', run: waiting };
    }
    return { kind: 'ended', run: current };
  }

  /** The still-active runs `runId`'s `workflow` nodes started, and theirs, each told `message`. */
  async cancelChildren(runId: string, message: string): Promise<void> {
    const children = await this.runs.activeChildren(runId);
    await Promise.all(
      children.map(async (child) => {
        try {
          await this.cancel(child.id, message);
          await this.cancelChildren(child.id, message);
        } catch (error) {
          // The store or Redis is away: the sweep's pass over children of ended parents retries.
          this.logger.warn({ err: error, runId: child.id, parentRunId: runId }, 'child run not canceled');
        }
      }),
    );
  }

  /** A run just ended: unless it succeeded, its children end with it. Never throws (the sweep retries). */
  async afterEnd(run: Pick<RunRecord, 'id' | 'status'>): Promise<void> {
    const reason = cascadeReason(run);
    if (!reason) return;
    await this.cancelChildren(run.id, reason).catch((error: unknown) => {
      this.logger.warn({ err: error, runId: run.id }, 'children of the ended run not canceled: the sweep retries');
    });
  }

  /**
   * The sweep's half of the cascade: up to `limit` active children per status whose parent has
   * failed or was canceled (the worker died between the parent's end and its cascade, or the store
   * was away then) are canceled now. Returns how many parents it cascaded from.
   */
  async cancelOrphans(limit: number): Promise<number> {
    const active = await this.children.active(limit);
    const parentIds = [...new Set(active.map((child) => child.parentRunId))];
    const statuses = await this.children.statuses(parentIds);
    let cascaded = 0;
    for (const parentId of parentIds) {
      const status = statuses.get(parentId);
      if (!status || !cascadeReason({ id: parentId, status })) continue;
      await this.afterEnd({ id: parentId, status });
      cascaded += 1;
    }
    return cascaded;
  }
}
