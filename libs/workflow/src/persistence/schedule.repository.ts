import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import { fromJsonText, toJsonText } from './json-field.js';
import { findPage, type Page, type PageRequest } from './paging.js';
import { SCHEDULE_MODEL, type ScheduleDoc } from './schedule.schema.js';
import type { CatchUpRule, OverlapRule } from './trigger-vocabulary.js';

/** When a schedule fires: a cron expression (with its timezone) or an interval. */
export type ScheduleTiming = { cron: string; timezone?: string } | { everyMs: number };

export interface ScheduleRecord {
  id: string;
  workflowId: string;
  timing: ScheduleTiming;
  inputs: Record<string, unknown>;
  secretInputs?: string;
  /** Undefined: the latest version at each firing. */
  version?: number;
  enabled: boolean;
  catchUp: CatchUpRule;
  overlap: OverlapRule;
  createdAt: Date;
  updatedAt: Date;
}

export type NewSchedule = Omit<ScheduleRecord, 'id' | 'createdAt' | 'updatedAt'>;

function recordOf(doc: ScheduleDoc): ScheduleRecord {
  const timing: ScheduleTiming =
    doc.cron !== undefined ? { cron: doc.cron, ...(doc.timezone && { timezone: doc.timezone }) } : { everyMs: doc.everyMs ?? 0 };
  return {
    id: String(doc._id),
    workflowId: doc.workflowId,
    timing,
    inputs: fromJsonText<Record<string, unknown>>(doc.inputs, {}),
    ...(doc.secretInputs !== undefined && { secretInputs: doc.secretInputs }),
    ...(doc.version !== undefined && { version: doc.version }),
    enabled: doc.enabled,
    catchUp: doc.catchUp,
    overlap: doc.overlap,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** The whole stored form of a schedule: a PATCH merges into the record, then replaces every field. */
function fieldsOf(schedule: NewSchedule) {
  const { timing } = schedule;
  return {
    set: {
      workflowId: schedule.workflowId,
      ...('cron' in timing ? { cron: timing.cron, ...(timing.timezone && { timezone: timing.timezone }) } : { everyMs: timing.everyMs }),
      inputs: toJsonText(schedule.inputs),
      ...(schedule.secretInputs !== undefined && { secretInputs: schedule.secretInputs }),
      ...(schedule.version !== undefined && { version: schedule.version }),
      enabled: schedule.enabled,
      catchUp: schedule.catchUp,
      overlap: schedule.overlap,
    },
    unset: {
      ...('cron' in timing ? { everyMs: 1, ...(!timing.timezone && { timezone: 1 }) } : { cron: 1, timezone: 1 }),
      ...(schedule.secretInputs === undefined && { secretInputs: 1 }),
      ...(schedule.version === undefined && { version: 1 }),
    },
  };
}

/** Schedules (`schedules`), handed out as plain records. */
@Injectable()
export class ScheduleRepository {
  constructor(@InjectModel(SCHEDULE_MODEL) private readonly model: Model<ScheduleDoc>) {}

  async create(schedule: NewSchedule): Promise<ScheduleRecord> {
    const created = await this.model.create(fieldsOf(schedule).set);
    return recordOf(created.toObject());
  }

  async findById(id: string): Promise<ScheduleRecord | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<ScheduleDoc>().exec() : null;
    return doc ? recordOf(doc) : undefined;
  }

  /** The workflow's schedules, newest first. */
  page(workflowId: string, page: PageRequest): Promise<Page<ScheduleRecord>> {
    return findPage(this.model, { workflowId }, page, recordOf);
  }

  async replace(id: string, schedule: NewSchedule): Promise<ScheduleRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const { set, unset } = fieldsOf(schedule);
    const update = Object.keys(unset).length > 0 ? { $set: set, $unset: unset } : { $set: set };
    const doc = await this.model.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' }).lean<ScheduleDoc>().exec();
    return doc ? recordOf(doc) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    return (await this.model.deleteOne({ _id: id }).exec()).deletedCount === 1;
  }

  /** Ids of the workflow's schedules (to remove them with the workflow). */
  async idsOf(workflowId: string): Promise<string[]> {
    const docs = await this.model.find({ workflowId }, { _id: 1 }).lean<Array<{ _id: unknown }>>().exec();
    return docs.map((doc) => String(doc._id));
  }

  async deleteOf(workflowId: string): Promise<void> {
    await this.model.deleteMany({ workflowId }).exec();
  }

  /** Every enabled schedule's record (the workers put back the BullMQ schedulers Redis lost). */
  async allEnabled(): Promise<ScheduleRecord[]> {
    const docs = await this.model.find({ enabled: true }).lean<ScheduleDoc[]>().exec();
    return docs.map(recordOf);
  }
}
