import type { ExecutionRecord, RunStore } from './run-store.js';

/**
 * A run's record writes. A record that must be durable before anything downstream starts (a node
 * that acts on the world) is written at once, together with every record waiting before it; the
 * records of pure nodes and skipped ones wait for that next write. A crash loses only waiting
 * records, and a resumed run recomputes those nodes.
 */
export class RecordWriter {
  private waiting: ExecutionRecord[] = [];

  constructor(private readonly store: RunStore) {}

  async write(record: ExecutionRecord, durable: boolean): Promise<void> {
    if (!durable) {
      this.waiting.push(record);
      return;
    }
    const batch = this.take();
    batch.push(record);
    await this.store.saveExecutions(batch);
  }

  /** Writes whatever waits (the end of a run whose host does not carry them itself). */
  async flush(): Promise<void> {
    const batch = this.take();
    if (batch.length > 0) await this.store.saveExecutions(batch);
  }

  /** Hands the waiting records over (to the host's terminal write); they are no longer this writer's. */
  take(): ExecutionRecord[] {
    const batch = this.waiting;
    this.waiting = [];
    return batch;
  }
}
