/**
 * Where a run's wall time goes, from its trace (issue 28): spans as the OTLP/HTTP JSON protocol
 * carries them (`resourceSpans[].scopeSpans[].spans[]`, hex ids, nanosecond timestamps as
 * strings), grouped by trace — one trace per run, from the API's request to the worker's last
 * store command.
 */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** `service.name` of the process that made it (mcpflow-api, mcpflow-worker). */
  service: string;
  startMs: number;
  endMs: number;
}

interface OtlpAttribute {
  key: string;
  value?: { stringValue?: string };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}
interface OtlpBody {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

/** The spans of one OTLP/HTTP JSON export request. */
export function spansOfOtlpJson(body: unknown): SpanRecord[] {
  const spans: SpanRecord[] = [];
  for (const resource of (body as OtlpBody).resourceSpans ?? []) {
    const service = resource.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value?.stringValue ?? 'unknown';
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
          name: span.name,
          service,
          startMs: Number(span.startTimeUnixNano) / 1e6,
          endMs: Number(span.endTimeUnixNano) / 1e6,
        });
  }
  return spans;
}

export interface TimeRow {
  /**
   * `api: POST /workflows/:id/runs`, `worker: node echo`, `worker: store.findAndModify runs #2`
   * (the second of that name in the run, by start), or a gap between spans, `(gap) …`.
   */
  what: string;
  /** Share of the runs that had it. */
  perRun: number;
  /** Median over the runs that had it of its duration. */
  medianMs: number;
  /** Median over the runs of when it began, from the request's start. */
  startsAtMs: number;
}

export interface RunTimes {
  /** Runs whose trace held the request and the worker's `run` span. */
  runs: number;
  /** One row per span (by name and rank within the run) and gap, in the order things happen. */
  rows: TimeRow[];
  /** Store commands per run by process, command and collection (mean count). */
  storeCommands: Record<string, number>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)];
};
const round = (value: number) => Number(value.toFixed(2));
const shortService = (service: string) => service.replace(/^mcpflow-/, '');

/**
 * Where a run's wall time goes, over the runs whose trace ids are given: per span (a name seen
 * several times in a run, e.g. the claim and the terminal write on `runs`, ranked #1, #2 by start)
 * its median duration and start, in the order things happen; plus two gaps no span covers: the
 * queue hop (the request's last store command before the run began → the worker's `run` span)
 * and the answer (the worker's last write on `runs`, the terminal one → the request's end, which
 * is how `?wait` learns the end).
 */
export function whereTimeGoes(spans: SpanRecord[], traceIds: string[]): RunTimes {
  const byTrace = new Map<string, SpanRecord[]>();
  for (const span of spans) byTrace.set(span.traceId, [...(byTrace.get(span.traceId) ?? []), span]);
  const rowsByName = new Map<string, { durations: number[]; starts: number[] }>();
  const add = (what: string, durationMs: number, startMs: number) => {
    const entry = rowsByName.get(what) ?? { durations: [], starts: [] };
    entry.durations.push(durationMs);
    entry.starts.push(startMs);
    rowsByName.set(what, entry);
  };
  const storeCommands: Record<string, number> = {};
  let runs = 0;
  for (const traceId of traceIds) {
    const trace = [...(byTrace.get(traceId) ?? [])].sort((a, b) => a.startMs - b.startMs);
    const request = trace.find((span) => span.service.endsWith('api') && span.name.startsWith('POST ') && span.name.endsWith('/runs'));
    const run = trace.find((span) => span.name === 'run');
    if (!request || !run) continue;
    runs++;
    const at = (ms: number) => ms - request.startMs;
    const nameOf = (span: SpanRecord) => `${shortService(span.service)}: ${span.name}`;
    const total = new Map<string, number>();
    for (const span of trace) total.set(nameOf(span), (total.get(nameOf(span)) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const span of trace) {
      const name = nameOf(span);
      const rank = (seen.get(name) ?? 0) + 1;
      seen.set(name, rank);
      add((total.get(name) ?? 1) > 1 ? `${name} #${rank}` : name, span.endMs - span.startMs, at(span.startMs));
      if (span.name.startsWith('store.')) storeCommands[name] = (storeCommands[name] ?? 0) + 1;
    }
    const enqueued = Math.max(
      request.startMs,
      ...trace
        .filter((span) => span.service === request.service && span !== request && span.endMs <= run.startMs)
        .map((span) => span.endMs),
    );
    add('(gap) queue hop: last API store command → run span', run.startMs - enqueued, at(enqueued));
    const terminal = trace.filter((span) => span.service === run.service && span.name === 'store.findAndModify runs').pop();
    if (terminal) add('(gap) answer: terminal write on runs → response', request.endMs - terminal.endMs, at(terminal.endMs));
  }
  const rows = [...rowsByName].map(([what, { durations, starts }]) => ({
    what,
    perRun: round(durations.length / Math.max(1, runs)),
    medianMs: round(median(durations)),
    startsAtMs: round(median(starts)),
  }));
  for (const name of Object.keys(storeCommands)) storeCommands[name] = round(storeCommands[name] / Math.max(1, runs));
  return { runs, rows: rows.sort((a, b) => a.startsAtMs - b.startsAtMs), storeCommands };
}
