/** Per-run limits (SPEC §3 "Limits"); the host reads them from the environment. */
export interface EngineLimits {
  /** Node executions allowed in one run, resumed ones included; a retried node counts once. */
  maxNodeExecutions: number;
  /** Wall-clock budget of a run, counted from its first start (see `RunWorkflowOptions.startedAt`). */
  runDeadlineMs: number;
  /** Default time budget of one MCP/model call when the node sets no `timeoutMs`. */
  callTimeoutMs: number;
  /** Nodes of one run executing at the same time. */
  concurrency: number;
  /** Size of the inputs/outputs copy kept in a log record; larger copies are cut and flagged. */
  maxOutputBytes: number;
  /** Size of the full outputs kept for resume; a larger node is executed again on resume. */
  maxStateBytes: number;
}

export const DEFAULT_ENGINE_LIMITS: Readonly<EngineLimits> = Object.freeze({
  maxNodeExecutions: 500,
  runDeadlineMs: 30 * 60_000,
  callTimeoutMs: 300_000,
  concurrency: 10,
  maxOutputBytes: 64 * 1024,
  // Well under MongoDB's 16 MiB document cap, leaving room for the rest of the record.
  maxStateBytes: 8 * 1024 * 1024,
});

/** Limits this module resolved: resolving them again (a map's body, once per item) returns them as they are. */
const resolved = new WeakSet<EngineLimits>();

export function resolveLimits(overrides: Partial<EngineLimits> = {}): EngineLimits {
  if (resolved.has(overrides as EngineLimits)) return overrides as EngineLimits;
  const limits = { ...DEFAULT_ENGINE_LIMITS };
  for (const key of Object.keys(limits) as (keyof EngineLimits)[]) {
    const value = overrides[key];
    if (value !== undefined) {
      if (!Number.isFinite(value) || value <= 0) throw new RangeError(`limit ${key} must be a positive number, got ${value}`);
      limits[key] = value;
    }
  }
  resolved.add(Object.freeze(limits));
  return limits;
}
