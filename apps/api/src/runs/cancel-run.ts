import { Injectable } from '@nestjs/common';
import { RunCancellation, toRunView, type RunView } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
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
 * child outlives a canceled parent and no parent is woken to start another. The store, queue and
 * channel steps are RunCancellation's (shared with the worker's cascade); the answer is this one's.
 */
@Injectable()
export class CancelRun {
  constructor(
    private readonly cancellation: RunCancellation,
    private readonly waiter: RunWaiter,
  ) {}

  async execute(runId: string): Promise<CanceledRun> {
    const canceled = await this.cancelOne(runId);
    await this.cancellation.cancelChildren(runId, `its parent run ${runId} was canceled`);
    return canceled;
  }

  private async cancelOne(runId: string): Promise<CanceledRun> {
    const outcome = await this.cancellation.cancel(runId);
    switch (outcome.kind) {
      case 'missing':
        throw new NotFoundError('Run', runId);
      case 'canceled':
        return { statusCode: 200, run: toRunView(outcome.run) };
      case 'requested': {
        const latest = (await this.waiter.wait(runId, CANCEL_WAIT_MS)) ?? toRunView(outcome.run);
        return { statusCode: isTerminal(latest) ? 200 : 202, run: latest };
      }
      case 'ended':
        if (outcome.run.status === 'canceled') return { statusCode: 200, run: toRunView(outcome.run) };
        throw new ConflictError('RUN_FINISHED', `run ${runId} already ${outcome.run.status}`);
    }
  }
}
