import type { ExecutionRecord, RunStore } from '#workflow';
import type { RunJournal } from '#workflow/nest';

/**
 * One claim's RunStore, on the claim's RunJournal (fenced writes). The records the engine defers
 * (executions a resume can recompute, see `RunStore.deferExecution`) wait here and go out with
 * the next durable save, in the same insert, or with the run's pause, hand-back or terminal write
 * (`takePending`). A crash loses only what resume recomputes.
 */
export class JournalRunStore implements RunStore {
  private pending: ExecutionRecord[] = [];

  constructor(private readonly journal: RunJournal) {}

  /** What the claim read: the executions of earlier claims. */
  loadExecutions(): Promise<ExecutionRecord[]> {
    return Promise.resolve(this.journal.records);
  }

  deferExecution(record: ExecutionRecord): void {
    this.pending.push(record);
  }

  saveExecution(record: ExecutionRecord): Promise<void> {
    const batch = [...this.pending, record];
    this.pending = [];
    return this.journal.appendRecords(batch);
  }

  /** The deferred records not written yet, for the pause, hand-back or terminal write; none are kept. */
  takePending(): ExecutionRecord[] {
    const pending = this.pending;
    this.pending = [];
    return pending;
  }
}
