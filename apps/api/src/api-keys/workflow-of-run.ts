import { Injectable } from '@nestjs/common';
import { RunRepository } from '#workflow/nest';

/** Runs whose workflow this process remembers; the oldest goes first. */
const REMEMBERED_RUNS = 10_000;

/**
 * The workflow a run belongs to, for the guard's check of workflow-limited keys (one read by id).
 * A run never changes workflow, so the answer is remembered (a run deleted since is answered 404
 * by the route's own read).
 */
@Injectable()
export class WorkflowOfRun {
  private readonly remembered = new Map<string, string>();

  constructor(private readonly runs: RunRepository) {}

  async workflowOf(runId: string): Promise<string | undefined> {
    const known = this.remembered.get(runId);
    if (known) return known;
    const run = await this.runs.findById(runId);
    if (!run) return undefined;
    const workflowId = String(run.workflowId);
    if (this.remembered.size >= REMEMBERED_RUNS) this.remembered.delete(this.remembered.keys().next().value as string);
    this.remembered.set(runId, workflowId);
    return workflowId;
  }
}
