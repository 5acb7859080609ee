import { Cron } from 'croner';
import type { ScheduleTiming } from '../persistence/schedule.repository.js';

/**
 * Cron expressions are read by croner everywhere: when a schedule is saved (validation), for its
 * `nextRunAt`, and by BullMQ itself (`cronRepeatStrategy`, its `settings.repeatStrategy`), so what
 * was accepted is what fires. 5 fields (minute precision) or 6 (seconds first).
 */
const CRON_MODE = '5-or-6-parts';

/** Why a cron expression or timezone cannot be used, or undefined when it can. */
export function cronProblem(cron: string, timezone: string | undefined): string | undefined {
  if (timezone !== undefined && !isTimezone(timezone)) return `unknown timezone "${timezone}" (an IANA name such as Europe/Berlin)`;
  try {
    const next = new Cron(cron, { timezone, mode: CRON_MODE, paused: true }).nextRun();
    return next ? undefined : 'the expression never fires';
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  }
}

function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

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

/** An estimate of the next firing when BullMQ cannot be asked (Redis away). */
export function estimatedNextRun(timing: ScheduleTiming, now: Date): Date | undefined {
  if ('cron' in timing) return nextCronRun(timing.cron, timing.timezone, now);
  return new Date(Math.floor(now.getTime() / timing.everyMs) * timing.everyMs + timing.everyMs);
}
