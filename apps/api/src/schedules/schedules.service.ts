import { Injectable, Logger } from '@nestjs/common';
import {
  estimatedNextRun,
  ScheduleQueue,
  ScheduleRepository,
  TriggerRunsRepository,
  type Page,
  type ScheduleRecord,
  type ScheduleTiming,
} from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { PageQuery } from '../common/pagination.js';
import type { CreateScheduleBody, UpdateScheduleBody } from './dto/schedule-requests.js';
import { RECENT_RUNS, toScheduleView, type ScheduleView } from './dto/schedule-responses.js';
import { ScheduleDrafts } from './schedule-drafts.js';

function timingOf(body: { cron?: string; everyMs?: number; timezone?: string | null }, stored?: ScheduleTiming): ScheduleTiming {
  if (body.everyMs !== undefined) return { everyMs: body.everyMs };
  const cron = body.cron ?? (stored && 'cron' in stored ? stored.cron : undefined);
  if (cron === undefined) return stored ?? { everyMs: 0 };
  const timezone = body.timezone === undefined ? (stored && 'cron' in stored ? stored.timezone : undefined) : (body.timezone ?? undefined);
  return { cron, ...(timezone && { timezone }) };
}

/**
 * `/workflows/:id/schedules`: saved in MongoDB (what a firing starts), then set on BullMQ (when it
 * fires). Should Redis be away at that moment the schedule is still saved: the workers put every
 * enabled schedule's job scheduler back (schedule-reconciler.ts).
 */
@Injectable()
export class Schedules {
  private readonly logger = new Logger(Schedules.name);

  constructor(
    private readonly schedules: ScheduleRepository,
    private readonly drafts: ScheduleDrafts,
    private readonly queue: ScheduleQueue,
    private readonly runs: TriggerRunsRepository,
  ) {}

  async create(workflowId: string, body: CreateScheduleBody): Promise<ScheduleView> {
    const draft = await this.drafts.check(workflowId, { ...body, timing: timingOf(body) });
    const saved = await this.schedules.create(draft);
    await this.arm(saved);
    this.logger.log({ scheduleId: saved.id, workflowId }, 'schedule created');
    return this.view(saved);
  }

  async update(workflowId: string, scheduleId: string, body: UpdateScheduleBody): Promise<ScheduleView> {
    const stored = await this.find(workflowId, scheduleId);
    const draft = await this.drafts.check(workflowId, {
      timing: timingOf(body, stored.timing),
      inputs: body.inputs ?? this.drafts.inputsOf(stored),
      version: body.version ?? stored.version ?? 'latest',
      enabled: body.enabled ?? stored.enabled,
      catchUp: body.catchUp ?? stored.catchUp,
      overlap: body.overlap ?? stored.overlap,
    });
    const saved = await this.schedules.replace(scheduleId, draft);
    if (!saved) throw new NotFoundError('Schedule', scheduleId);
    await this.arm(saved);
    return this.view(saved);
  }

  async delete(workflowId: string, scheduleId: string): Promise<void> {
    await this.find(workflowId, scheduleId);
    // Redis first: a schedule without its document would fire into nothing (the firing skips it), the reverse would keep firing.
    await this.queue.remove(scheduleId);
    await this.schedules.delete(scheduleId);
  }

  async get(workflowId: string, scheduleId: string): Promise<ScheduleView> {
    return this.view(await this.find(workflowId, scheduleId));
  }

  async list(workflowId: string, page: PageQuery): Promise<Page<ScheduleView>> {
    const found = await this.schedules.page(workflowId, page);
    return { items: await Promise.all(found.items.map((schedule) => this.view(schedule))), nextCursor: found.nextCursor };
  }

  private async find(workflowId: string, scheduleId: string): Promise<ScheduleRecord> {
    const schedule = await this.schedules.findById(scheduleId);
    if (!schedule || schedule.workflowId !== workflowId) throw new NotFoundError('Schedule', scheduleId);
    return schedule;
  }

  private async arm(schedule: ScheduleRecord): Promise<void> {
    await this.queue.set(schedule).catch((error: unknown) => {
      this.logger.warn({ err: error, scheduleId: schedule.id }, 'schedule saved but not set on Redis: the workers will set it');
    });
  }

  private async view(schedule: ScheduleRecord): Promise<ScheduleView> {
    const [next, recent] = await Promise.all([
      schedule.enabled ? this.queue.nextRunAt(schedule.id).catch(() => undefined) : undefined,
      this.runs.recent({ scheduleId: schedule.id }, RECENT_RUNS),
    ]);
    return toScheduleView(schedule, next ?? (schedule.enabled ? estimatedNextRun(schedule.timing, new Date()) : undefined), recent);
  }
}
