import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import type { RunStatus } from '../engine/statuses.js';
import { RUN_MODEL, type RunDoc } from './run.schema.js';

/** Statuses in which a run of a schedule still counts as running for `overlap: "skip"` (a run waiting for a person too). */
const UNFINISHED: readonly RunStatus[] = ['queued', 'running', 'waiting'];

/** A run as a schedule or webhook lists it among its last ones. */
export interface TriggeredRunSummary {
  id: string;
  status: RunStatus;
  createdAt: Date;
  scheduledFor?: Date;
  deliveryId?: string;
}

/** The runs of one schedule or webhook: its last few, and whether one is unfinished. */
@Injectable()
export class TriggerRunsRepository {
  constructor(@InjectModel(RUN_MODEL) private readonly runs: Model<RunDoc>) {}

  async recent(by: { scheduleId: string } | { webhookId: string }, limit: number): Promise<TriggeredRunSummary[]> {
    const docs = await this.runs
      .find(by, { _id: 1, status: 1, createdAt: 1, scheduledFor: 1, deliveryId: 1 })
      .sort({ _id: -1 })
      .limit(limit)
      .lean<Pick<RunDoc, '_id' | 'status' | 'createdAt' | 'scheduledFor' | 'deliveryId'>[]>()
      .exec();
    return docs.map((doc) => ({
      id: String(doc._id),
      status: doc.status,
      createdAt: doc.createdAt,
      ...(doc.scheduledFor && { scheduledFor: doc.scheduledFor }),
      ...(doc.deliveryId && { deliveryId: doc.deliveryId }),
    }));
  }

  async hasUnfinished(scheduleId: string): Promise<boolean> {
    return (await this.runs.exists({ scheduleId, status: { $in: [...UNFINISHED] } }).exec()) !== null;
  }
}
