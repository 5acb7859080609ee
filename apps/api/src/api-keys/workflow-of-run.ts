import { Injectable } from '@nestjs/common';
import { RunRepository } from '#workflow/nest';

/** The workflow a run belongs to, for the guard's check of workflow-limited keys (one read by id). */
@Injectable()
export class WorkflowOfRun {
  constructor(private readonly runs: RunRepository) {}

  async workflowOf(runId: string): Promise<string | undefined> {
    const run = await this.runs.findById(runId);
    return run ? String(run.workflowId) : undefined;
  }
}
