import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import { RUN_MODEL, type RunDoc } from './run.schema.js';

/** A sub-workflow run that has not ended, and the run that started it. */
export interface ActiveChildRun {
  id: string;
  parentRunId: string;
}

/** The child runs still going, and their parents' statuses: what the sweep's cancel cascade reads. */
@Injectable()
export class ChildRunRepository {
  constructor(@InjectModel(RUN_MODEL) private readonly runs: Model<RunDoc>) {}

  /**
   * Up to `limit` child runs of each not-ended status. One query per status: FerretDB v1 hands an
   * equality to PostgreSQL and filters the parent in Go over the runs of that status only.
   */
  async active(limit: number): Promise<ActiveChildRun[]> {
    const byStatus = await Promise.all(
      (['queued', 'running', 'waiting'] as const).map((status) =>
        this.runs
          .find({ status, parentRunId: { $exists: true } }, { _id: 1, parentRunId: 1 })
          .limit(limit)
          .lean(),
      ),
    );
    return byStatus.flat().flatMap((doc) => (doc.parentRunId ? [{ id: String(doc._id), parentRunId: String(doc.parentRunId) }] : []));
  }

  /** The status of each of these runs (by `_id`, one read each: `$in` is decoded in Go on FerretDB v1). */
  async statuses(ids: readonly string[]): Promise<Map<string, RunDoc['status']>> {
    const found = await Promise.all(ids.map((id) => this.runs.findById(new Types.ObjectId(id), { status: 1 }).lean()));
    return new Map(found.flatMap((doc) => (doc ? [[String(doc._id), doc.status] as const] : [])));
  }
}
