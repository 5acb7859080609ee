import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { TOOL_CALL_MODEL, type ToolCallDoc } from './tool-call.schema.js';

export type ToolCallRecord = Omit<ToolCallDoc, '_id'>;

export interface ToolUsage {
  tool: string;
  calls: number;
  /** Failed calls by code; {} when none failed. */
  errors: Record<string, number>;
  /** Nearest-rank percentiles of `durationMs`. */
  p50Ms: number;
  p95Ms: number;
}

/** Nearest-rank: the smallest value with at least `p` of the values at or below it (0-based index). */
export function percentileRank(count: number, p: number): number {
  return Math.max(0, Math.ceil(p * count) - 1);
}

/**
 * Tool calls as usage: written one per call, read only through the database's own grouping and
 * sorting — counts by tool and error code with one `$group`, each percentile as one indexed,
 * sorted read of a single value — so no call list is ever loaded into memory. Both work on
 * MongoDB and on FerretDB v1 (which has `$group`/`$sum` but no `$percentile`).
 */
@Injectable()
export class ToolCallRepository {
  constructor(@InjectModel(TOOL_CALL_MODEL) private readonly model: Model<ToolCallDoc>) {}

  async record(call: ToolCallRecord): Promise<void> {
    await this.model.create(call);
  }

  /** Several calls in one insert (a worker's batch); one that fails validation does not keep the others out. */
  async recordMany(calls: ToolCallRecord[]): Promise<void> {
    await this.model.insertMany(calls, { ordered: false });
  }

  /**
   * Retention: removes the calls made before `cutoff`, oldest first, a batch at a time (found by
   * the `at` index, deleted by `_id`: the one filter FerretDB v1 hands to its backend), until none
   * is left or `deadline` (epoch ms) passes — then `complete` is false and the next pass goes on.
   */
  async pruneOlderThan(cutoff: Date, deadline: number, batchSize = 500): Promise<{ removed: number; complete: boolean }> {
    let removed = 0;
    for (;;) {
      if (Date.now() > deadline) return { removed, complete: false };
      const ids = (
        await this.model
          .find({ at: { $lt: cutoff } }, { _id: 1 })
          .sort({ at: 1 })
          .limit(batchSize)
          .lean()
          .exec()
      ).map((doc) => doc._id);
      if (ids.length) removed += (await this.model.deleteMany({ _id: { $in: ids } }).exec()).deletedCount;
      if (ids.length < batchSize) return { removed, complete: true };
    }
  }

  async usage(toolsetId: string, since: Date): Promise<ToolUsage[]> {
    const match = { toolsetId, at: { $gte: since } };
    const groups = await this.model
      .aggregate<{ _id: { tool: string; errorCode?: string | null }; calls: number }>([
        { $match: match },
        { $group: { _id: { tool: '$tool', errorCode: '$errorCode' }, calls: { $sum: 1 } } },
      ])
      .exec();
    const byTool = new Map<string, { calls: number; errors: Record<string, number> }>();
    for (const group of groups) {
      const entry = byTool.get(group._id.tool) ?? { calls: 0, errors: {} };
      entry.calls += group.calls;
      const code = group._id.errorCode;
      if (code) entry.errors[code] = (entry.errors[code] ?? 0) + group.calls;
      byTool.set(group._id.tool, entry);
    }
    const tools = [...byTool.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Promise.all(
      tools.map(async ([tool, { calls, errors }]) => ({
        tool,
        calls,
        errors,
        p50Ms: await this.durationAt({ ...match, tool }, percentileRank(calls, 0.5)),
        p95Ms: await this.durationAt({ ...match, tool }, percentileRank(calls, 0.95)),
      })),
    );
  }

  private async durationAt(filter: Record<string, unknown>, rank: number): Promise<number> {
    const [doc] = await this.model
      .find(filter, { durationMs: 1 })
      .sort({ durationMs: 1, _id: 1 })
      .skip(rank)
      .limit(1)
      .lean<Pick<ToolCallDoc, 'durationMs'>[]>()
      .exec();
    return doc?.durationMs ?? 0;
  }
}
