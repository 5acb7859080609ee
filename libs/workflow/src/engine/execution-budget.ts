/**
 * The node executions one run may make (RUN_MAX_NODE_EXECUTIONS), shared by the run and every
 * sub-graph it runs (a map's items, nested maps), so that a body cannot multiply the limit by
 * its item count. Resumed executions count as they are read back.
 */
export class ExecutionBudget {
  private used = 0;

  constructor(readonly max: number) {}

  /** Counts an execution a resume keeps. */
  count(): void {
    this.used += 1;
  }

  /** Counts a new execution; false, and nothing counted, when the run has none left. */
  take(): boolean {
    if (this.used >= this.max) return false;
    this.used += 1;
    return true;
  }
}
