import { Injectable } from '@nestjs/common';
import { DelayedError, WaitingError, type Job } from 'bullmq';
import { SpanKind } from '@opentelemetry/api';
import { contextOf, inSpan, RunRepository, type RunJobData } from '#workflow/nest';
import { ActiveRuns } from '../runs/active-runs.js';
import { RunExecutor } from '../runs/run-executor.js';

/** BullMQ job → engine. The job carries only the run id; everything else is in MongoDB. */
@Injectable()
export class RunProcessor {
  constructor(
    private readonly active: ActiveRuns,
    private readonly executor: RunExecutor,
    private readonly runs: RunRepository,
  ) {}

  /** Traced, one span per execution of a run, continuing the trace of the request that enqueued it. */
  process(job: Job<RunJobData>, token: string | undefined): Promise<string> {
    return inSpan(
      'run',
      { kind: SpanKind.CONSUMER, parent: contextOf(job.data.trace), attributes: { 'mcpflow.run.id': job.data.runId } },
      () => this.execute(job, token),
    );
  }

  private async execute(job: Job<RunJobData>, token: string | undefined): Promise<string> {
    if (job.data.wakeAt !== undefined) {
      const due = Date.parse(job.data.wakeAt);
      // Early by the clocks' difference: back to the delayed set until the time, no attempt counted.
      if (due > Date.now()) {
        await job.moveToDelayed(due, token);
        throw new DelayedError();
      }
      // A scheduled resume takes the run only if it still waits for that time (not answered, canceled or paused again).
      if (!(await this.runs.wake(job.data.runId))) return 'not-active';
    }
    const handle = this.active.start(job.data.runId, String(job.id));
    try {
      const { workflowId, version } = job.data;
      const result = await this.executor.execute(
        handle,
        workflowId !== undefined && version !== undefined ? { workflowId, version } : undefined,
      );
      if (result === 'handed-back') {
        // Back to `wait` without counting an attempt: another worker resumes the run now.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      return result;
    } finally {
      this.active.end(handle);
    }
  }
}
