import type { ExecutionRecord, RunStore } from '#workflow';
import type { NodeExecutionRepository } from '#workflow/nest';

/**
 * One claim's RunStore: the records the engine defers (executions a resume can recompute, see
 * `RunStore.deferExecution`) wait here and go out with the next durable save, in the same
 * insert, or with the run's terminal write (`takePending`). A crash loses only what resume
 * recomputes; a record that stands on resume is never written later than before.
 */
export class BufferedRunStore implements RunStore {
  private pending: ExecutionRecord[] = [];

  /** `firstClaim`: no execution can exist yet (only a worker that claimed the run writes them), so loading skips the read. */
  constructor(
    private readonly executions: NodeExecutionRepository,
    private readonly firstClaim: boolean,
  ) {}

  loadExecutions(runId: string): Promise<ExecutionRecord[]> {
    return this.firstClaim ? Promise.resolve([]) : this.executions.loadExecutions(runId);
  }

  deferExecution(record: ExecutionRecord): void {
    this.pending.push(record);
  }

  saveExecution(record: ExecutionRecord): Promise<void> {
    const batch = [...this.pending, record];
    this.pending = [];
    return this.executions.saveExecutions(batch);
  }

  /** The deferred records not written yet, for the terminal (or hand-back) write; none are kept. */
  takePending(): ExecutionRecord[] {
    const pending = this.pending;
    this.pending = [];
    return pending;
  }
}
