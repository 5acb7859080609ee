import { z } from 'zod';
import { CATCH_UP_RULES, isStoredId, OVERLAP_RULES } from '#workflow/nest';

/** Request bodies of /workflows/:id/schedules (strict: unknown fields are rejected with their path). */

/** The shortest interval a schedule may fire on (and cron's finest unit): one second. */
export const MIN_EVERY_MS = 1000;

const cron = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .meta({ description: 'Cron expression, 5 fields (minute hour day month weekday) or 6 (seconds first)', example: '*/5 * * * *' });
const everyMs = z
  .number()
  .int()
  .min(MIN_EVERY_MS)
  .max(366 * 24 * 3_600_000)
  .meta({ description: 'Interval in milliseconds' });
const timezone = z
  .string()
  .min(1)
  .max(100)
  .meta({ description: 'IANA timezone of the cron expression (default UTC)', example: 'Europe/Berlin' });
const version = z
  .union([z.literal('latest'), z.number().int().min(1)])
  .meta({ description: 'The version each firing runs: "latest" (at the firing) or a pinned number' });
const inputs = z
  .record(z.string(), z.unknown())
  .meta({ description: "The run inputs of every firing, checked against the version's inputSchema" });
const catchUp = z
  .enum(CATCH_UP_RULES)
  .meta({ description: 'A firing missed while nothing could take it: "one" runs it once when taken late, "none" skips it' });
const overlap = z
  .enum(OVERLAP_RULES)
  .meta({ description: 'A firing while a run of this schedule is unfinished: "allow" starts another, "skip" starts none' });

function oneTiming(
  body: { cron?: string | null; everyMs?: number | null; timezone?: string | null },
  ctx: z.RefinementCtx,
  creating: boolean,
) {
  const hasCron = body.cron !== undefined && body.cron !== null;
  const hasEvery = body.everyMs !== undefined && body.everyMs !== null;
  if (hasCron && hasEvery) ctx.addIssue({ code: 'custom', path: ['everyMs'], message: 'give cron or everyMs, not both' });
  if (creating && !hasCron && !hasEvery) ctx.addIssue({ code: 'custom', path: ['cron'], message: 'give cron or everyMs' });
  if (hasEvery && body.timezone) ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'timezone applies to cron only' });
}

export const createScheduleBody = z
  .strictObject({
    cron: cron.optional(),
    everyMs: everyMs.optional(),
    timezone: timezone.optional(),
    inputs: inputs.default({}),
    version: version.default('latest'),
    enabled: z.boolean().default(true),
    catchUp: catchUp.default('one'),
    overlap: overlap.default('allow'),
  })
  .superRefine((body, ctx) => oneTiming(body, ctx, true));
export type CreateScheduleBody = z.output<typeof createScheduleBody>;

/** Fields given replace the stored ones; `cron` replaces an interval and `everyMs` a cron; `timezone: null` means UTC. */
export const updateScheduleBody = z
  .strictObject({
    cron: cron.optional(),
    everyMs: everyMs.optional(),
    timezone: timezone.nullable().optional(),
    inputs: inputs.optional(),
    version: version.optional(),
    enabled: z.boolean().optional(),
    catchUp: catchUp.optional(),
    overlap: overlap.optional(),
  })
  .superRefine((body, ctx) => oneTiming(body, ctx, false));
export type UpdateScheduleBody = z.output<typeof updateScheduleBody>;

export const scheduleParams = z.object({
  id: z.string().meta({ description: 'The workflow id' }),
  scheduleId: z
    .string()
    .refine((value) => isStoredId(value), 'not a valid id')
    .meta({ description: 'The schedule id' }),
});
