import { Cron } from 'croner';

/**
 * Cron expressions are read by croner everywhere: when a schedule is saved (validation), for its
 * `nextRunAt`, and by BullMQ itself (`cronRepeatStrategy`, its `settings.repeatStrategy`), so what
 * was accepted is what fires. 5 fields (minute precision) or 6 (seconds first).
 */
export const CRON_MODE = '5-or-6-parts';

/** The first firing strictly after `after` (cron), or undefined when there is none. */
export function nextCronRun(cron: string, timezone: string | undefined, after: Date): Date | undefined {
  return new Cron(cron, { timezone, mode: CRON_MODE, paused: true }).nextRun(after) ?? undefined;
}

/** BullMQ's `settings.repeatStrategy` for `pattern` schedulers, reading the pattern with croner. */
export function cronRepeatStrategy(
  millis: number,
  options: { pattern?: string; tz?: string; startDate?: string | number | Date },
): number | undefined {
  if (!options.pattern) return undefined;
  const start = options.startDate === undefined ? millis : Math.max(millis, new Date(options.startDate).getTime());
  return nextCronRun(options.pattern, options.tz, new Date(start))?.getTime();
}
