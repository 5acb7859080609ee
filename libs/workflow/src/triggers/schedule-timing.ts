import { Cron } from 'croner';
import { CRON_MODE, nextCronRun } from '../queue/cron-repeat.js';
import type { ScheduleTiming } from '../persistence/schedule.repository.js';

/** Why a cron expression or timezone cannot be used (read as BullMQ will read it), or undefined when it can. */
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

/** An estimate of the next firing when BullMQ cannot be asked (Redis away). */
export function estimatedNextRun(timing: ScheduleTiming, now: Date): Date | undefined {
  if ('cron' in timing) return nextCronRun(timing.cron, timing.timezone, now);
  return new Date(Math.floor(now.getTime() / timing.everyMs) * timing.everyMs + timing.everyMs);
}
