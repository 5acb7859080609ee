import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { McpClientPool } from '#mcp';
import {
  APP_CONFIG,
  ENGINE_EXTRAS,
  MAX_RUN_CLAIMS,
  NODE_REGISTRY,
  NodeExecutionRepository,
  RunRepository,
  runWorkflow,
  systemClock,
  toRunView,
  ToolsetCatalog,
  type AppConfig,
  type EngineLimits,
  type NodeRegistry,
  type RunDoc,
  type RunErrorDoc,
  type RunOutcome,
  type RunStore,
  WorkflowRepository,
} from '#workflow';
import type { RunHandle } from './active-runs.js';
import { createRedactor } from './redact-inputs.js';
import { RunEventsPublisher } from './run-events-publisher.js';
import { RunSessions } from './run-sessions.js';
import { PooledToolInvoker, runCatalog } from './run-tools.js';

/**
 * On a run's first claim no execution can exist (only a worker that claimed it writes them), so
 * the store skips the read — a scan of the whole collection on FerretDB v1.
 */
function firstClaimStore(store: RunStore): RunStore {
  return { loadExecutions: async () => [], saveExecution: (record) => store.saveExecution(record) };
}

/** How one execution of a job ended, for the processor to tell BullMQ. */
export type ExecutionResult = 'finished' | 'not-active' | 'handed-back' | 'lost';

/**
 * Runs (or resumes) one run: claim it in MongoDB under a fresh lease, end the MCP sessions a
 * killed earlier attempt left on record, run the engine with the run's own MCP client pool (each
 * session it opens recorded on the run), close the pool, then record the terminal state — in
 * that order, so no MCP session outlives its run — and publish `run.finished`.
 */
@Injectable()
export class RunExecutor {
  private readonly logger = new Logger(RunExecutor.name);
  private readonly limits: Partial<EngineLimits>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Optional() @Inject(ENGINE_EXTRAS) private readonly extras: Record<string, unknown> | undefined,
    private readonly runs: RunRepository,
    private readonly executions: NodeExecutionRepository,
    private readonly workflows: WorkflowRepository,
    private readonly catalog: ToolsetCatalog,
    private readonly sessions: RunSessions,
    private readonly publisher: RunEventsPublisher,
  ) {
    const { maxNodeExecutions, runDeadlineMs, callTimeoutMs, runConcurrency, maxOutputBytes } = config.limits;
    this.limits = { maxNodeExecutions, runDeadlineMs, callTimeoutMs, concurrency: runConcurrency, maxOutputBytes };
  }

  async execute(handle: RunHandle): Promise<ExecutionResult> {
    const lease = randomUUID();
    const run = await this.runs.claim(handle.runId, lease);
    if (!run) return 'not-active';
    await this.sessions.endLeftovers(run);
    if (run.claims > MAX_RUN_CLAIMS) {
      return this.fail(run, lease, { code: 'RUN_RECOVERY_EXHAUSTED', message: `the run was started ${MAX_RUN_CLAIMS} times without finishing` });
    }
    if (run.cancelRequestedAt) handle.stop('cancel');
    const version = (await this.workflows.findVersion(String(run.workflowId), run.version))?.definition;
    if (!version) return this.fail(run, lease, { code: 'WORKFLOW_VERSION_NOT_FOUND', message: `workflow version ${run.workflowId}/${run.version} is gone` });
    const recorder = this.sessions.recorder(run._id);
    const pool = new McpClientPool({ onSessionOpened: recorder.onSessionOpened });
    try {
      const catalog = runCatalog(this.catalog);
      const outcome = await runWorkflow({
        runId: handle.runId,
        workflow: version,
        inputs: toRunView(run).inputs,
        registry: this.registry,
        services: {
          tools: new PooledToolInvoker(pool, recorder.targets, catalog, this.config.limits.callTimeoutMs),
          catalog,
          clock: systemClock,
          ...(this.extras && { extras: this.extras }),
        },
        store: run.claims === 1 ? firstClaimStore(this.executions) : this.executions,
        limits: this.limits,
        signal: handle.signal,
        startedAt: (run.startedAt ?? run.createdAt).getTime(),
        onEvent: (event) => this.publisher.engineEvent(event, run.claims),
        redact: await createRedactor(version, catalog),
      });
      await pool.closeAll();
      return await this.settle(run, lease, handle, outcome);
    } finally {
      await pool.closeAll();
    }
  }

  private async settle(run: RunDoc, lease: string, handle: RunHandle, outcome: RunOutcome): Promise<ExecutionResult> {
    if (handle.cause === 'lease-lost') return 'lost';
    if (handle.cause === 'shutdown') {
      await this.runs.release(run._id, lease);
      return 'handed-back';
    }
    const { nodesExecuted, nodesSkipped, nodesFailed } = outcome.stats;
    const finished = await this.runs.finish(run, lease, {
      status: outcome.status,
      outputs: outcome.outputs,
      ...(outcome.error && { error: outcome.error }),
      stats: { nodesExecuted, nodesSkipped, nodesFailed },
      finishedAt: new Date(),
    });
    if (!finished) return 'lost';
    this.publisher.runFinished(finished);
    this.logger.log({ runId: handle.runId, status: finished.status, durationMs: finished.durationMs, claim: run.claims }, 'run finished');
    return 'finished';
  }

  private async fail(run: RunDoc, lease: string, error: RunErrorDoc): Promise<ExecutionResult> {
    const finished = await this.runs.finish(run, lease, { status: 'failed', error, finishedAt: new Date() });
    if (!finished) return 'lost';
    this.publisher.runFinished(finished);
    this.logger.warn({ runId: String(run._id), code: error.code }, error.message);
    return 'finished';
  }
}
