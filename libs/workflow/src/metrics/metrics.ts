import { Injectable } from '@nestjs/common';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RunEvent } from '../engine/run-events.js';
import type { FiringOutcome, HookRefusal, HookVerification } from '../persistence/trigger-vocabulary.js';
import { BoundedLabel, BoundedLabelsPer } from './bounded-label.js';

/** A run as it ended (RunRecord and RunView both fit). */
export interface FinishedRunFacts {
  status: string;
  durationMs?: number;
  error?: { code?: string };
}

/** One MCP tool call that was sent (`errorCode` absent when it succeeded). */
export interface McpCallFacts {
  toolsetId: string;
  tool: string;
  durationMs: number;
  errorCode?: string;
}

/** Where an MCP call came from: a run's node, or `POST /toolsets/:id/tools/:tool/call`. */
export type McpCallSource = 'run' | 'adhoc';

/** What `mcpflow_mcp_sessions_open` counts: each live run's client pool (its `size`). */
export interface SessionHolder {
  readonly size: number;
}

export type QueueCounts = Partial<Record<(typeof QUEUE_STATES)[number], number>>;

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
/** Seconds; runs last from milliseconds (a few nodes) to the 30-minute default deadline. */
const RUN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
const CALL_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

let processRegistry: Registry | undefined;

/**
 * Node's default metrics (CPU, memory, event loop, GC) belong to the process, not to one
 * application: registered once, since tests boot many APIs and workers in one process, and
 * prom-client's collectors (GC observer, event-loop monitor) are never stopped.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * The Prometheus series of one process (API or worker); other code tells it what happened with
 * one call. Two registries: `work` (runs, nodes, MCP calls and sessions: what a worker pushes for
 * the API to sum, see worker-snapshots.ts) and `service` (HTTP, queue depth: this application's
 * own), beside the process's default metrics. Labels never carry run ids; toolset ids, tool names, node types and error codes
 * are capped (BoundedLabel), so the number of series stays bounded whatever the input.
 */
@Injectable()
export class Metrics {
  readonly work = new Registry();
  readonly service = new Registry();
  /**
   * Weakly held: a run's pool is counted while it lives (its size drops to 0 when closed) and is
   * forgotten once collected, so the run code needs no second call to take it off.
   */
  private readonly sessionHolders = new Set<WeakRef<SessionHolder>>();
  private readonly forgetHolder = new FinalizationRegistry<WeakRef<SessionHolder>>((ref) => this.sessionHolders.delete(ref));
  private queueCounts?: () => Promise<QueueCounts>;
  private readonly runFinishedListeners: (() => void)[] = [];
  private readonly errorCodes = new BoundedLabel(200);
  private readonly nodeTypes = new BoundedLabel(100);
  private readonly tools = new BoundedLabelsPer(1000, 200);
  private readonly routes = new BoundedLabel(300);

  private readonly runsStarted = new Counter({
    name: 'mcpflow_runs_started_total',
    help: 'Runs started (first claim)',
    registers: [this.work],
  });
  private readonly runsFinished = new Counter({
    name: 'mcpflow_runs_finished_total',
    help: 'Runs finished, by status and error code (`none` when none)',
    labelNames: ['status', 'error_code'],
    registers: [this.work],
  });
  private readonly runDuration = new Histogram({
    name: 'mcpflow_run_duration_seconds',
    help: 'Run duration from start to terminal state, by status',
    labelNames: ['status'],
    buckets: RUN_BUCKETS,
    registers: [this.work],
  });
  private readonly nodeDuration = new Histogram({
    name: 'mcpflow_node_duration_seconds',
    help: 'Node execution duration, by node type and status (skipped nodes not counted)',
    labelNames: ['node_type', 'status'],
    buckets: CALL_BUCKETS,
    registers: [this.work],
  });
  private readonly callDuration = new Histogram({
    name: 'mcpflow_mcp_call_duration_seconds',
    help: 'MCP tool call duration, by toolset id, tool and source (run or adhoc), failed calls included',
    labelNames: ['toolset', 'tool', 'source'],
    buckets: CALL_BUCKETS,
    registers: [this.work],
  });
  private readonly callErrors = new Counter({
    name: 'mcpflow_mcp_call_errors_total',
    help: 'MCP tool calls that failed, by toolset id, tool, source and error code (MCP_TOOL_ERROR for an isError result)',
    labelNames: ['toolset', 'tool', 'source', 'code'],
    registers: [this.work],
  });

  private readonly scheduleFirings = new Counter({
    name: 'mcpflow_schedule_firings_total',
    help: 'Schedule firings taken by a worker, by outcome (started, repeated, missed, overlap, disabled, invalid)',
    labelNames: ['outcome'],
    registers: [this.work],
  });
  private readonly hookDeliveries = new Counter({
    name: 'mcpflow_hook_deliveries_total',
    help: 'Inbound webhook deliveries that passed verification, by verification and whether they started a run (false: a redelivery)',
    labelNames: ['verify', 'started'],
    registers: [this.service],
  });
  private readonly hookRefusals = new Counter({
    name: 'mcpflow_hook_refusals_total',
    help: 'Inbound webhook deliveries refused, by reason',
    labelNames: ['reason'],
    registers: [this.service],
  });

  private readonly httpDuration = new Histogram({
    name: 'mcpflow_http_request_duration_seconds',
    help: 'HTTP request duration, by method, route template (never the raw path) and status',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_BUCKETS,
    registers: [this.service],
  });

  constructor() {
    const holders = this.sessionHolders;
    new Gauge({
      name: 'mcpflow_mcp_sessions_open',
      help: 'MCP client connections held open by running runs (connecting ones included)',
      registers: [this.work],
      collect() {
        this.set([...holders].reduce((sum, ref) => sum + (ref.deref()?.size ?? 0), 0));
      },
    });
    const counts = () => this.queueCounts?.();
    new Gauge({
      name: 'mcpflow_queue_jobs',
      help: 'Run jobs in the BullMQ queue, by state (waiting, active, delayed, failed)',
      labelNames: ['state'],
      registers: [this.service],
      async collect() {
        // Redis away: the gauge keeps its last values rather than failing the whole scrape.
        const found = await counts()?.catch(() => undefined);
        for (const state of QUEUE_STATES) if (found?.[state] !== undefined) this.set({ state }, found[state]);
      },
    });
  }

  /** Engine events as the worker publishes them (`claim`: which claim of the run this is; 1 = its start). */
  runEvent(event: RunEvent, claim: number): void {
    if (event.type === 'run.started' && claim === 1) this.runsStarted.inc();
    if (event.type !== 'node.finished' || event.record.status === 'skipped') return;
    const labels = { node_type: this.nodeTypes.of(event.record.type), status: event.record.status };
    this.nodeDuration.observe(labels, event.record.durationMs / 1000);
  }

  runFinished(run: FinishedRunFacts): void {
    this.runsFinished.inc({ status: run.status, error_code: this.errorCodes.of(run.error?.code ?? 'none') });
    if (run.durationMs !== undefined) this.runDuration.observe({ status: run.status }, run.durationMs / 1000);
    for (const listener of this.runFinishedListeners) listener();
  }

  mcpCall(call: McpCallFacts, source: McpCallSource): void {
    const [toolset, tool] = this.tools.of(call.toolsetId, call.tool);
    this.callDuration.observe({ toolset, tool, source }, call.durationMs / 1000);
    if (call.errorCode) this.callErrors.inc({ toolset, tool, source, code: this.errorCodes.of(call.errorCode) });
  }

  scheduleFired(outcome: FiringOutcome): void {
    this.scheduleFirings.inc({ outcome });
  }

  hookDelivered(verify: HookVerification, started: boolean): void {
    this.hookDeliveries.inc({ verify, started: String(started) });
  }

  hookRefused(reason: HookRefusal): void {
    this.hookRefusals.inc({ reason });
  }

  /** Counts a run's client pool in `mcpflow_mcp_sessions_open` for as long as the pool exists. */
  holdSessions(holder: SessionHolder): void {
    const ref = new WeakRef(holder);
    this.sessionHolders.add(ref);
    this.forgetHolder.register(holder, ref);
  }

  /** `route`: the matched route's template (`/runs/:id`), or undefined when no route matched. */
  httpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    this.httpDuration.observe({ method, route: route ? this.routes.of(route) : 'unmatched', status: String(status) }, seconds);
  }

  watchQueue(counts: () => Promise<QueueCounts>): void {
    this.queueCounts = counts;
  }

  onRunFinished(listener: () => void): void {
    this.runFinishedListeners.push(listener);
  }

  get contentType(): string {
    return this.service.contentType;
  }

  /** The `work` series as JSON, for the API to sum with other processes' (worker-snapshots.ts). */
  workSnapshot(): Promise<object[]> {
    return this.work.getMetricsAsJSON();
  }

  /** The exposition text: this process's series, its `work` ones summed with `others` (workers' snapshots). */
  async exposition(others: object[][] = []): Promise<string> {
    const work = others.length ? AggregatorRegistry.aggregate([await this.workSnapshot(), ...others]) : this.work;
    return [await processMetrics().metrics(), await this.service.metrics(), await work.metrics()].join('\n');
  }
}
