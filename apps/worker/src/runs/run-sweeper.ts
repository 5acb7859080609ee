import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { ENGINE_ERROR_CODES, type EngineErrorCode } from '#workflow';
import {
  APP_CONFIG,
  deadlineStartOf,
  RunCancellation,
  RunQueueProducer,
  RunRepository,
  type AppConfig,
  type RunRecord,
} from '#workflow/nest';
import { ActiveRuns } from './active-runs.js';
import { RunEventsPublisher } from './run-events-publisher.js';
import { RunSessions } from './run-sessions.js';

/** Runs examined per sweep; the oldest unconfirmed first. */
const BATCH = 100;
/** The orphaned children's check (three status queries) runs once every this many sweeps: it repairs a crash, not the normal path. */
const ORPHAN_CHECK_SWEEPS = 10;

/**
 * What BullMQ cannot see: runs in MongoDB whose job is gone. Every `RUN_SWEEP_INTERVAL_MS`, each
 * worker looks at active runs not confirmed for `RUN_REQUEUE_AFTER_MS` and asks BullMQ about
 * their job:
 * - live (waiting, active, delayed) → confirmed;
 * - failed (retries used up, worker lost) → the run fails;
 * - missing (Redis was down when the API accepted it, or lost its data) → enqueued again under
 *   the same job id (harmless if another worker does the same), unless the run is past its
 *   deadline, counted from its start (or acceptance, if it never started): then it fails.
 * A run it fails gets the MCP sessions its dead worker left on record ended. It also re-checks
 * MongoDB for cancel requests of this worker's runs (a missed Redis message), and schedules again
 * the resume of a waiting run overdue by `RUN_REQUEUE_AFTER_MS` whose delayed job is gone (Redis
 * restarted without its data, or was unreachable when the run paused), and cancels the active
 * children of runs that failed or were canceled (a worker that died before its run's cascade).
 */
@Injectable()
export class RunSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(RunSweeper.name);
  private timer?: NodeJS.Timeout;
  private sweeping = false;
  private orphansCheckedAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
    private readonly active: ActiveRuns,
    private readonly sessions: RunSessions,
    private readonly publisher: RunEventsPublisher,
    private readonly cancellation: RunCancellation,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.recovery.sweepIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      for (const runId of await this.runs.cancelRequested(this.active.ids())) this.active.stop(runId, 'cancel');
      const before = new Date(Date.now() - this.config.recovery.requeueAfterMs);
      for (const run of await this.runs.unconfirmedActive(before, BATCH)) {
        // A run this worker executes is live, and must not be written by anyone else meanwhile: on
        // FerretDB v1 every update rewrites the whole document from what it read, so a confirm
        // landing beside the run's terminal write put the run back to `running` (lost update),
        // and the next sweep gave it to a second claim.
        if (this.active.holds(run.id)) continue;
        await this.examine(run);
      }
      for (const run of await this.runs.overdueWaits(before, BATCH)) await this.wakeAgain(run);
      if (Date.now() - this.orphansCheckedAt >= ORPHAN_CHECK_SWEEPS * this.config.recovery.sweepIntervalMs) {
        this.orphansCheckedAt = Date.now();
        await this.cancellation.cancelOrphans(BATCH);
      }
    } catch (error) {
      // Redis or MongoDB unreachable: the next sweep tries again.
      this.logger.debug({ err: error }, 'sweep interrupted');
    } finally {
      this.sweeping = false;
    }
  }

  private async examine(run: RunRecord): Promise<void> {
    const runId = run.id;
    const state = await this.queue.jobState(runId);
    if (state === 'live') return this.runs.confirm(run.id);
    if (state === 'failed') return this.fail(run, ENGINE_ERROR_CODES.runWorkerFailed, 'the run’s job failed and will not be retried');
    const deadline = deadlineStartOf(run).getTime() + this.config.limits.runDeadlineMs;
    if (Date.now() > deadline)
      return this.fail(
        run,
        ENGINE_ERROR_CODES.runDeadlineExceeded,
        `the run passed its deadline of ${this.config.limits.runDeadlineMs} ms without a live job`,
      );
    if (state === 'completed') await this.queue.removeJob(runId);
    await this.queue.enqueue(runId, { workflowId: run.workflowId, version: run.version });
    await this.runs.confirm(run.id);
    this.logger.log({ runId, status: run.status }, 'run had no job: enqueued again');
  }

  /** A waiting run past its scheduled resume by more than `RUN_REQUEUE_AFTER_MS`: its wake job again, unless one is live. */
  private async wakeAgain(run: RunRecord): Promise<void> {
    const { resumeAt, requestedAt } = run.inputRequest ?? {};
    if (!resumeAt || !requestedAt) return;
    const runId = run.id;
    const hint = { workflowId: run.workflowId, version: run.version };
    if (await this.queue.rescheduleWake(runId, resumeAt, requestedAt, hint)) {
      this.logger.log({ runId, resumeAt: resumeAt.toISOString() }, 'scheduled resume had no job: scheduled again');
    }
  }

  private async fail(run: RunRecord, code: EngineErrorCode, message: string): Promise<void> {
    const failed = await this.runs.failActive(run.id, { code, message });
    if (!failed) return;
    await this.sessions.endLeftovers(failed);
    this.publisher.runFinished(failed);
    await this.cancellation.afterEnd(failed);
    this.logger.warn({ runId: run.id, code }, message);
  }
}
