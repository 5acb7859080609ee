import type { JobsOptions } from 'bullmq';

/**
 * BullMQ job id of a run. Derived from the run id, so enqueueing a run twice (the API and the
 * recovery sweep racing) adds one job. Prefixed because BullMQ refuses an all-digit custom id,
 * which a hex ObjectId can be.
 */
export function runJobId(runId: string): string {
  return `run-${runId}`;
}

/** Attempts of one job when the worker throws (e.g. MongoDB unreachable): about a minute of backoff in all. */
export const RUN_JOB_ATTEMPTS = 6;

export const RUN_JOB_OPTIONS: JobsOptions = {
  attempts: RUN_JOB_ATTEMPTS,
  backoff: { type: 'exponential', delay: 2000 },
  // The run document is the record; the job is only a ticket. Failed jobs stay a day to explain themselves.
  removeOnComplete: true,
  removeOnFail: { age: 24 * 3600 },
};

/** A worker that takes a run more often than this (crash loops, endless stalls) fails it. */
export const MAX_RUN_CLAIMS = 10;
