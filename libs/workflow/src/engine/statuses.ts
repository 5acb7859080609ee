/**
 * The statuses of runs and of node executions: the one list of each. The unions below, the API's
 * zod enums (requests and answers, hence the OpenAPI document) and the store's enums are built from
 * these lists.
 */

/** A run no one will execute again: retention and `DELETE /runs/:id` touch these and nothing else. */
export const FINISHED_RUN_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export type FinishedRunStatus = (typeof FINISHED_RUN_STATUSES)[number];

/** A run the queue or a worker holds. */
export const ACTIVE_RUN_STATUSES = ['queued', 'running'] as const;

/** Every status of a run. `waiting`: paused until someone answers a tool's request for input; no worker holds it. */
export const RUN_STATUSES = [...ACTIVE_RUN_STATUSES, 'waiting', ...FINISHED_RUN_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How one pass of the engine leaves a run: finished, or `waiting` (nothing more could run while a node waits for input). */
export const RUN_OUTCOME_STATUSES = [...FINISHED_RUN_STATUSES, 'waiting'] as const;
export type RunOutcomeStatus = (typeof RUN_OUTCOME_STATUSES)[number];

/** Every status of a node execution (a log item). */
export const NODE_STATUSES = ['succeeded', 'failed', 'skipped', 'canceled', 'waiting'] as const;
export type NodeStatus = (typeof NODE_STATUSES)[number];

export function isFinishedRunStatus(status: string): status is FinishedRunStatus {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status);
}

export function isActiveRunStatus(status: string): boolean {
  return (ACTIVE_RUN_STATUSES as readonly string[]).includes(status);
}
