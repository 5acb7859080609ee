import { Injectable, Logger } from '@nestjs/common';
import type { CancelSignals, RunRecord } from '#workflow/nest';
import { RunEventsPublisher } from './run-events-publisher.js';

/** The worker's side of a cancel cascade (RunCancellation): the cancel channel and `run.finished`. */
@Injectable()
export class WorkerCancelSignals implements CancelSignals {
  private readonly logger = new Logger(WorkerCancelSignals.name);

  constructor(private readonly publisher: RunEventsPublisher) {}

  async notifyWorkers(runId: string): Promise<void> {
    await this.publisher.requestStop(runId).catch((error: unknown) => {
      this.logger.warn({ err: error, runId }, 'cancel message not published (Redis unreachable): the worker sees the request in MongoDB');
    });
  }

  async finished(run: RunRecord): Promise<void> {
    this.publisher.runFinished(run);
  }
}
