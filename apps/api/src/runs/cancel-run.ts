import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, runCancelChannel, RunQueueProducer, RunRepository, toRunView, type AppConfig, type RunView } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
import { RedisConnection } from '../redis/redis.module.js';
import { RunEventsHub } from './run-events-hub.js';
import { isTerminal, RunWaiter } from './run-waiter.js';

/** How long `POST /runs/:id/cancel` waits for the worker to stop a running run before answering 202. */
const CANCEL_WAIT_MS = 10_000;

export interface CanceledRun {
  statusCode: 200 | 202;
  run: RunView;
}

/**
 * `POST /runs/:id/cancel` (SPEC §4). A queued run ends at once. A running run gets `cancelRequestedAt` in MongoDB
 * and a message on the workers' cancel channel; the worker holding it aborts the engine (in-flight
 * MCP calls are cancelled, the server receives notifications/cancelled) and ends it `canceled`.
 * A worker that missed the message sees the request on its next check of MongoDB.
 * The runs its `workflow` nodes started (and theirs) are canceled with it, after it, so that no
 * child outlives a canceled parent and no parent is woken to start another.
 */
@Injectable()
export class CancelRun {
  private readonly logger = new Logger(CancelRun.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
    private readonly hub: RunEventsHub,
    private readonly waiter: RunWaiter,
    private readonly redis: RedisConnection,
  ) {}

  async execute(runId: string): Promise<CanceledRun> {
    const canceled = await this.cancelOne(runId);
    await this.cancelChildren(runId);
    return canceled;
  }

  private async cancelChildren(runId: string): Promise<void> {
    const children = await this.runs.activeChildren(runId);
    await Promise.all(
      children.map((child) =>
        this.execute(child.id).catch((error: unknown) => {
          // Already ended meanwhile (409), or the store is away: the child runs on to its own end; logged.
          this.logger.warn({ err: error, runId: child.id, parentRunId: runId }, 'child run not canceled');
        }),
      ),
    );
  }

  private async cancelOne(runId: string): Promise<CanceledRun> {
    const queued = await this.runs.cancelQueued(runId);
    if (queued) {
      const run = toRunView(queued);
      // The job, if any, would find the run terminal and do nothing; removing it is tidiness.
      await this.queue.removeJob(runId).catch(() => undefined);
      // On FerretDB v1 a worker's claim landing in the same milliseconds can still hold the run
      // (no atomic compare-and-set there, see guarded-update.ts): told now, it stops at once
      // instead of at its next sweep. No worker holds it otherwise, and the message is ignored.
      await this.notifyWorkers(runId);
      await this.hub.publish({ type: 'run.finished', runId, at: new Date().toISOString(), run });
      return { statusCode: 200, run };
    }
    const running = await this.runs.requestCancel(runId);
    if (running) {
      await this.notifyWorkers(runId);
      const latest = (await this.waiter.wait(runId, CANCEL_WAIT_MS)) ?? toRunView(running);
      return { statusCode: isTerminal(latest) ? 200 : 202, run: latest };
    }
    const current = await this.runs.findById(runId);
    if (!current) throw new NotFoundError('Run', runId);
    const waiting = current.status === 'waiting' ? await this.runs.cancelWaiting(runId) : undefined;
    if (waiting) {
      const run = toRunView(waiting);
      await this.hub.publish({ type: 'run.finished', runId, at: run.finishedAt ?? new Date().toISOString(), run });
      return { statusCode: 200, run };
    }
    if (current.status === 'canceled') return { statusCode: 200, run: toRunView(current) };
    throw new ConflictError('RUN_FINISHED', `run ${runId} already ${current.status}`);
  }

  /** The cancel channel every worker listens on; a worker that misses it sees `cancelRequestedAt` on its next sweep. */
  private async notifyWorkers(runId: string): Promise<void> {
    await this.redis.client.publish(runCancelChannel(this.config.queuePrefix), runId).catch((error: unknown) => {
      this.logger.warn({ err: error, runId }, 'cancel message not published (Redis unreachable): the worker sees the request in MongoDB');
    });
  }
}
