import type { RunStatus } from '../engine/statuses.js';

/**
 * Why a run's still-active children are canceled when it ends, or undefined when they are not:
 * a parent that succeeded waited for every child it started, and one still going has nothing to
 * cancel. The words become the children's `error.message` (code RUN_CANCELED).
 */
export function cascadeReason(parent: { id: string; status: RunStatus }): string | undefined {
  if (parent.status === 'failed') return `its parent run ${parent.id} failed`;
  if (parent.status === 'canceled') return `its parent run ${parent.id} was canceled`;
  return undefined;
}
