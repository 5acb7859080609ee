import { Injectable, Logger, Optional, type BeforeApplicationShutdown, type OnApplicationShutdown } from '@nestjs/common';
import { ToolCallRepository, type ToolCallRecord } from '#workflow/nest';

/** How long a usage record may wait for others to share its insert: GET /toolsets/:id/usage sees a call this much later at most. */
export const USAGE_BATCH_MS = 250;
/** A batch this large goes out at once. */
const USAGE_BATCH_SIZE = 200;

/**
 * The usage records (`tool_calls`) of the runs' tool calls, written in batches: one insert for
 * the calls of up to USAGE_BATCH_MS instead of one per call (the store commands a run costs are
 * most of its CPU, issue 28). Usage is a by-product: a run never waits for it and a failed insert
 * never fails one — as before, a worker killed meanwhile loses the records not written yet (now
 * up to USAGE_BATCH_MS of them instead of the one under way). Once the worker stops, each record
 * is written at once, and what waits is written before the store connection closes.
 */
@Injectable()
export class UsageRecords implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger(UsageRecords.name);
  private batch: ToolCallRecord[] = [];
  private timer?: NodeJS.Timeout;
  private stopping = false;

  constructor(@Optional() private readonly calls?: ToolCallRepository) {}

  record(call: ToolCallRecord): void {
    if (!this.calls) return;
    this.batch.push(call);
    if (this.stopping || this.batch.length >= USAGE_BATCH_SIZE) return void this.flush();
    this.timer ??= setTimeout(() => void this.flush(), USAGE_BATCH_MS).unref();
  }

  /** Writes what waits; never throws (a failed insert is logged, its records are not kept). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (batch.length === 0 || !this.calls) return;
    await this.calls
      .recordMany(batch)
      .catch((error: unknown) => this.logger.warn({ err: error, calls: batch.length }, 'tool calls not recorded for usage'));
  }

  beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    return this.flush();
  }

  onApplicationShutdown(): Promise<void> {
    return this.flush();
  }
}
