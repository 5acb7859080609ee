/**
 * The words of triggers (schedules and inbound webhooks), spelled once: zod enums, mongoose
 * enums, OpenAPI enums and metric labels are all built from these lists.
 */

/** A firing missed while nothing could take it: run it once when taken late, or skip it. */
export const CATCH_UP_RULES = ['one', 'none'] as const;
export type CatchUpRule = (typeof CATCH_UP_RULES)[number];

/** A firing while a run of the same schedule is still active: start another, or skip it. */
export const OVERLAP_RULES = ['allow', 'skip'] as const;
export type OverlapRule = (typeof OVERLAP_RULES)[number];

/** What a schedule firing did (the `outcome` label of `mcpflow_schedule_firings_total`). */
export const FIRING_OUTCOMES = ['started', 'repeated', 'missed', 'overlap', 'disabled', 'invalid'] as const;
export type FiringOutcome = (typeof FIRING_OUTCOMES)[number];

/** How an inbound webhook proves a delivery comes from its sender. */
export const HOOK_VERIFICATIONS = ['github', 'stripe', 'slack', 'token'] as const;
export type HookVerification = (typeof HOOK_VERIFICATIONS)[number];

/** What `POST /hooks/:id` answers: at once with the run id, or once the run ended (bounded). */
export const HOOK_RESPONSES = ['accepted', 'outputs'] as const;
export type HookResponse = (typeof HOOK_RESPONSES)[number];

/** Why a delivery started no run (the `reason` label of `mcpflow_hook_refusals_total`). */
export const HOOK_REFUSALS = [
  'unknown_hook',
  'signature_missing',
  'signature_invalid',
  'timestamp_expired',
  'body_too_large',
  'body_invalid',
  'inputs_invalid',
  'rate_limited',
] as const;
export type HookRefusal = (typeof HOOK_REFUSALS)[number];
