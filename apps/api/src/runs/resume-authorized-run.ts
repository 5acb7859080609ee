import { Injectable, Logger } from '@nestjs/common';
import { RunQueueProducer, RunRepository } from '#workflow/nest';

/**
 * A run that waited for an end user's OAuth authorization (a per-user toolset, docs/oauth.md):
 * once the callback stored that subject's tokens, the run goes back to `queued` and a worker
 * resumes it at the node that waited. Nothing happens when the run no longer waits on that node
 * (canceled, or resumed already).
 */
@Injectable()
export class ResumeAuthorizedRun {
  private readonly logger = new Logger(ResumeAuthorizedRun.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly queue: RunQueueProducer,
  ) {}

  async execute(runId: string, nodeId: string): Promise<boolean> {
    const resumed = await this.runs.resumeWaitingOn(runId, nodeId);
    if (!resumed) return false;
    try {
      // The finished job of the run's last claim is gone (removeOnComplete); if not yet, the recovery sweep enqueues the run.
      await this.queue.removeJob(runId).catch(() => undefined);
      await this.queue.enqueue(runId, { workflowId: resumed.workflowId, version: resumed.version });
    } catch (error) {
      this.logger.warn({ err: error, runId }, 'authorized run not enqueued (Redis unreachable): the recovery sweep will enqueue it');
    }
    this.logger.log({ runId, nodeId }, 'authorization stored: run queued again');
    return true;
  }
}
