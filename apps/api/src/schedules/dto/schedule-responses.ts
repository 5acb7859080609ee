import { z } from 'zod';
import { RUN_STATUSES } from '#workflow';
import { CATCH_UP_RULES, OVERLAP_RULES, type ScheduleRecord, type TriggeredRunSummary } from '#workflow/nest';

const iso = z.string().meta({ format: 'date-time' });

/** How many of a schedule's (or hook's) last runs its answer lists. */
export const RECENT_RUNS = 5;

export const triggeredRunSchema = z
  .object({ id: z.string(), status: z.enum(RUN_STATUSES), createdAt: iso, scheduledFor: iso.optional(), deliveryId: z.string().optional() })
  .meta({ id: 'TriggeredRun' });

export const scheduleSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    cron: z.string().nullable(),
    everyMs: z.number().int().nullable(),
    timezone: z.string().nullable(),
    inputs: z.record(z.string(), z.unknown()).meta({ description: 'Secret inputs (writeOnly / format password) show as ***' }),
    version: z.union([z.literal('latest'), z.number().int()]),
    enabled: z.boolean(),
    catchUp: z.enum(CATCH_UP_RULES),
    overlap: z.enum(OVERLAP_RULES),
    nextRunAt: iso.nullable().meta({ description: 'The next firing (null while disabled)' }),
    recentRuns: z.array(triggeredRunSchema).meta({ description: `The last ${RECENT_RUNS} runs it started, newest first` }),
    createdAt: iso,
    updatedAt: iso,
  })
  .meta({ id: 'Schedule' });

export type ScheduleView = z.output<typeof scheduleSchema>;

export function toTriggeredRunView(run: TriggeredRunSummary) {
  return {
    id: run.id,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    ...(run.scheduledFor && { scheduledFor: run.scheduledFor.toISOString() }),
    ...(run.deliveryId && { deliveryId: run.deliveryId }),
  };
}

export function toScheduleView(schedule: ScheduleRecord, nextRunAt: Date | undefined, recent: TriggeredRunSummary[]): ScheduleView {
  const { timing } = schedule;
  return {
    id: schedule.id,
    workflowId: schedule.workflowId,
    cron: 'cron' in timing ? timing.cron : null,
    everyMs: 'everyMs' in timing ? timing.everyMs : null,
    timezone: 'cron' in timing ? (timing.timezone ?? null) : null,
    inputs: schedule.inputs,
    version: schedule.version ?? 'latest',
    enabled: schedule.enabled,
    catchUp: schedule.catchUp,
    overlap: schedule.overlap,
    nextRunAt: schedule.enabled && nextRunAt ? nextRunAt.toISOString() : null,
    recentRuns: recent.map(toTriggeredRunView),
    createdAt: schedule.createdAt.toISOString(),
    updatedAt: schedule.updatedAt.toISOString(),
  };
}
