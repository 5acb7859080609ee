import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { UnrecoverableError, type Job, type Worker } from 'bullmq';
import {
  APP_CONFIG,
  handBackWhileRateLimited,
  openWorker,
  outageOf,
  RUN_JOB_ATTEMPTS,
  RunQueueProducer,
  RunRepository,
  type AppConfig,
  type RunJobData,
} from '#workflow/nest';
import { ENGINE_ERROR_CODES } from '#workflow';
import { RunProcessor } from './run.processor.js';
import { ActiveRuns } from '../runs/active-runs.js';
import { RunEventsPublisher } from '../runs/run-events-publisher.js';
import { RunSessions } from '../runs/run-sessions.js';

/** How long no worker takes a run after one found the store down: a probe a second. */
export const STORE_OUTAGE_PAUSE_MS = 1000;

/**
 * The BullMQ consumer of runs. Stalled-job recovery is BullMQ's: a job whose worker died keeps
 * no lock, is moved back to `wait` after `RUN_LOCK_DURATION_MS` + up to two
 * `RUN_STALLED_INTERVAL_MS`, and is resumed by another worker (at most `RUN_MAX_STALLED_COUNT` times).
 * A run that meets the store down goes back to the head of the queue without spending an attempt,
 * and the workers pause (see `take`).
 */
@Injectable()
export class RunWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(RunWorker.name);
  private worker?: Worker<RunJobData, string>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly processor: RunProcessor,
    private readonly active: ActiveRuns,
    private readonly runs: RunRepository,
    private readonly sessions: RunSessions,
    private readonly publisher: RunEventsPublisher,
    private readonly queue: RunQueueProducer,
  ) {}

  onApplicationBootstrap(): void {
    const { recovery, worker } = this.config;
    this.worker = openWorker<RunJobData, string>(this.config, 'runs', (job, token) => this.take(job, token), {
      concurrency: worker.concurrency,
      lockDuration: recovery.lockDurationMs,
      stalledInterval: recovery.stalledIntervalMs,
      maxStalledCount: recovery.maxStalledCount,
    });
    this.worker.on('error', (error) => this.logger.warn({ err: error }, 'BullMQ worker error'));
    // The lock is gone (Redis restarted, or it was away): the run goes on. If another worker takes
    // it meanwhile, the store refuses this execution's next write and it stops then (run-journal.ts).
    this.worker.on('lockRenewalFailed', (jobIds) => this.logger.warn({ jobIds }, 'could not renew the lock of running jobs'));
    this.worker.on('failed', (job, error) => void this.onJobFailed(job, error));
  }

  /**
   * A run the store could not serve (MongoDB unreachable, PostgreSQL behind FerretDB down) goes back
   * to the head of the queue without spending an attempt, and no worker takes a run for
   * STORE_OUTAGE_PAUSE_MS. With BullMQ's exponential backoff instead, each outage cost the runs
   * it met 2, 4, 8… s after the store was back and a place at the back of the queue, and a long
   * outage used up their attempts. Redis away as well: BullMQ's own retry, as for any error.
   */
  private async take(job: Job<RunJobData>, token: string | undefined): Promise<string> {
    try {
      return await this.processor.process(job, token);
    } catch (error) {
      if (outageOf(error) !== 'STORE_UNAVAILABLE') throw error;
      try {
        await this.queue.pauseTaking(STORE_OUTAGE_PAUSE_MS);
      } catch {
        throw error;
      }
      this.logger.warn({ runId: job.data.runId, reason: (error as Error).message.slice(0, 200) }, 'store unavailable: run handed back');
      throw handBackWhileRateLimited();
    }
  }

  /** Before MongoDB and Redis connections close: stop taking jobs, let runs finish, hand back the rest. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.worker) return;
    const closing = this.worker.close();
    const grace = setTimeout(() => {
      if (this.active.size > 0) this.logger.log(`handing ${this.active.size} unfinished run(s) back to the queue`);
      this.active.stopAll('shutdown');
    }, this.config.worker.shutdownGraceMs);
    try {
      await closing;
    } finally {
      clearTimeout(grace);
    }
  }

  /**
   * The job will not be tried again (attempts used up, or stalled too often): the run fails, and the
   * sessions its worker left open end. BullMQ fails a job that stalled more than `maxStalledCount`
   * times with its `UnrecoverableError` when a worker next takes it (the job's `deferredFailure`);
   * our processor never throws one, so that is the lost-worker case, told by type, not by message.
   */
  private async onJobFailed(job: Job<RunJobData> | undefined, error: Error): Promise<void> {
    if (!job) return;
    const workerLost = error instanceof UnrecoverableError;
    const exhausted = workerLost || job.attemptsMade >= (job.opts.attempts ?? RUN_JOB_ATTEMPTS);
    if (!exhausted) {
      this.logger.warn({ err: error, runId: job.data.runId, attempt: job.attemptsMade }, 'run attempt failed; BullMQ retries it');
      return;
    }
    try {
      const code = workerLost ? ENGINE_ERROR_CODES.runWorkerLost : ENGINE_ERROR_CODES.runWorkerFailed;
      const failed = await this.runs.failActive(job.data.runId, { code, message: error.message.slice(0, 1000) });
      if (failed) {
        await this.sessions.endLeftovers(failed);
        this.publisher.runFinished(failed);
      }
      this.logger.error({ err: error, runId: job.data.runId }, 'run failed: its job will not be retried');
    } catch (storeError) {
      // MongoDB away too: the recovery sweep fails the run later from the job's failed state.
      this.logger.error({ err: storeError, runId: job.data.runId }, 'could not record a failed run');
    }
  }
}
