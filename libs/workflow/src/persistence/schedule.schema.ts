import { Schema, type Types } from 'mongoose';
import { CATCH_UP_RULES, OVERLAP_RULES, type CatchUpRule, type OverlapRule } from './trigger-vocabulary.js';

export const SCHEDULE_MODEL = 'Schedule';

/**
 * A schedule: a workflow started by time, either on a cron expression (`cron`, in `timezone`) or
 * every `everyMs`. BullMQ's job scheduler of the same id does the timing; this document says what
 * each firing starts (the same stored inputs, the pinned `version` or the latest) and how.
 */
export interface ScheduleDoc {
  _id: Types.ObjectId;
  workflowId: string;
  cron?: string;
  everyMs?: number;
  timezone?: string;
  /** JSON text of the inputs, secret ones as `***`. */
  inputs: string;
  /** The secret inputs, sealed JSON (like a run's). */
  secretInputs?: string;
  /** Absent: the workflow's latest version at each firing. */
  version?: number;
  enabled: boolean;
  catchUp: CatchUpRule;
  overlap: OverlapRule;
  createdAt: Date;
  updatedAt: Date;
}

export const ScheduleSchema = new Schema<ScheduleDoc>(
  {
    workflowId: { type: String, required: true },
    cron: { type: String },
    everyMs: { type: Number },
    timezone: { type: String },
    inputs: { type: String, required: true },
    secretInputs: { type: String },
    version: { type: Number },
    enabled: { type: Boolean, required: true },
    catchUp: { type: String, enum: CATCH_UP_RULES, required: true },
    overlap: { type: String, enum: OVERLAP_RULES, required: true },
  },
  { collection: 'schedules', timestamps: true, versionKey: false },
);
ScheduleSchema.index({ workflowId: 1, _id: -1 });
