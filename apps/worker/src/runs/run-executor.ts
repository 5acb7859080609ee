import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  ENGINE_ERROR_CODES,
  RUN_SECRETS_EXTRA,
  runWorkflow,
  systemClock,
  type EngineLimits,
  type NodeRegistry,
  type RunOutcome,
  type ExecutionRecord,
} from '#workflow';
import {
  APP_CONFIG,
  deadlineStartOf,
  ENGINE_EXTRAS,
  MAX_RUN_CLAIMS,
  NODE_REGISTRY,
  isStoredId,
  NodeExecutionRepository,
  RunRepository,
  toRunView,
  toStoredId,
  type AppConfig,
  type RunDoc,
  type RunCompletion,
  type RunErrorDoc,
} from '#workflow/nest';
import type { RunHandle } from './active-runs.js';
import { BufferedRunStore } from './buffered-run-store.js';
import { createRedactor } from './redact-inputs.js';
import { RunEventsPublisher } from './run-events-publisher.js';
import { RunPreparer, type PreparedRun, type RunPlan } from './run-preparation.js';
import { RunSessions } from './run-sessions.js';

/** How one execution of a job ended, for the processor to tell BullMQ. */
export type ExecutionResult = 'finished' | 'not-active' | 'handed-back' | 'lost';

/**
 * Runs (or resumes) one run: claim it in MongoDB under a fresh lease, end the MCP sessions a
 * killed earlier attempt left on record, run the engine with the run's own MCP client pool (each
 * session it opens recorded on the run), close the pool (as soon as the engine says no MCP call
 * can come any more: alongside the last tool record's save), then record the terminal state — in
 * that order, so no MCP session outlives its run — and publish `run.finished`. With the job's
 * plan, the workflow version, the toolsets and the sessions the run will surely need are loaded
 * and opened while the claim is under way (run-preparation.ts); a session is kept on record only
 * once the run is held, and the pool is closed whatever becomes of the claim.
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
    private readonly preparer: RunPreparer,
    private readonly sessions: RunSessions,
    private readonly publisher: RunEventsPublisher,
  ) {
    const { maxNodeExecutions, runDeadlineMs, callTimeoutMs, runConcurrency, maxOutputBytes } = config.limits;
    this.limits = { maxNodeExecutions, runDeadlineMs, callTimeoutMs, concurrency: runConcurrency, maxOutputBytes };
  }

  /** `plan`: what the job says the run executes, so that loading and connecting start with the claim. */
  async execute(handle: RunHandle, plan?: RunPlan): Promise<ExecutionResult> {
    const lease = randomUUID();
    // Held once claimed and rid of the sessions an earlier attempt left open (before anything else).
    // A first claim has none to look for: sessions are recorded only once a claim holds the run.
    const taken = this.runs.claim(handle.runId, lease).then(async (claimed) => {
      if (claimed && claimed.claims > 1) await this.sessions.endLeftovers(claimed);
      return claimed;
    });
    const early = plan && isStoredId(handle.runId) ? this.preparer.prepare(toStoredId(handle.runId), plan, taken) : undefined;
    const run = await taken.catch(async (error: unknown) => {
      await early?.close();
      throw error;
    });
    let prepared: PreparedRun | undefined = early;
    try {
      if (!run || run.claims > MAX_RUN_CLAIMS) {
        await early?.close();
        if (!run) return 'not-active';
        return await this.fail(run, lease, {
          code: ENGINE_ERROR_CODES.runRecoveryExhausted,
          message: `the run was started ${MAX_RUN_CLAIMS} times without finishing`,
        });
      }
      if (run.cancelRequestedAt) handle.stop('cancel');
      if (!prepared?.matches(run)) {
        await prepared?.close();
        prepared = this.preparer.prepare(run._id, { workflowId: String(run.workflowId), version: run.version }, taken);
      }
      try {
        return await this.run(handle, run, lease, prepared);
      } finally {
        await prepared.close();
      }
    } finally {
      // Only now, after the terminal (or hand-back) write, so the run's result is not kept waiting.
      // A crash before this leaves records of ended sessions: a resumed run's claim gets a 404 for
      // each and forgets it; a finished run's stay behind, inert (nothing reads them).
      await Promise.all([...new Set([early, prepared])].map((means) => means?.forgetSessions()));
    }
  }

  /** The engine with the run's prepared means; the pool is closed before the terminal write. */
  private async run(handle: RunHandle, run: RunDoc, lease: string, prepared: PreparedRun): Promise<ExecutionResult> {
    const version = await prepared.definition;
    if (!version) {
      await prepared.close();
      return this.fail(run, lease, {
        code: ENGINE_ERROR_CODES.workflowVersionNotFound,
        message: `workflow version ${run.workflowId}/${run.version} is gone`,
      });
    }
    const catalog = prepared.toolsets;
    const store = new BufferedRunStore(this.executions, run.claims === 1);
    const outcome = await runWorkflow({
      runId: handle.runId,
      workflow: version,
      inputs: toRunView(run).inputs,
      registry: this.registry,
      services: {
        tools: prepared.invoker,
        catalog,
        clock: systemClock,
        extras: { ...this.extras, [RUN_SECRETS_EXTRA]: prepared.secretInputs },
      },
      store,
      limits: this.limits,
      signal: handle.signal,
      startedAt: deadlineStartOf(run).getTime(),
      onEvent: this.publisher.engineEvents(run.claims),
      redact: await createRedactor(version, catalog),
      // No MCP call can come any more: the sessions end alongside the last tool record's save, not after it.
      onSideEffectsOver: () => void prepared.close().catch(() => undefined),
    });
    const { status } = outcome;
    const handedOver = handle.cause === 'lease-lost' || handle.cause === 'shutdown';
    if (status === 'waiting' && !handedOver) return this.pause(run, lease, outcome, prepared, store.takePending());
    // Handed over, a waiting outcome writes nothing terminal (settle returns before the status is read).
    const settled = { ...outcome, status: status === 'waiting' ? 'canceled' : status } as const;
    return this.settle(run, lease, handle, settled, prepared.close(), store.takePending());
  }

  /**
   * running → waiting: the pool closed (nothing is held open), the deferred records written (the
   * waiting node's among them: its log item shows the request), then the request and the answers
   * so far stored on the run.
   */
  private async pause(
    run: RunDoc,
    lease: string,
    outcome: RunOutcome,
    prepared: PreparedRun,
    pending: ExecutionRecord[],
  ): Promise<ExecutionResult> {
    const closing = prepared.close();
    const plan = await prepared.input.pauseOn(outcome.waitingNodes ?? [], new Date());
    if (!plan) {
      await closing;
      return this.fail(run, lease, { code: ENGINE_ERROR_CODES.runWorkerFailed, message: 'a node waited for input the worker did not see' });
    }
    if (pending.length > 0) await this.executions.saveExecutions(pending);
    const { nodesExecuted, nodesSkipped, nodesFailed } = outcome.stats;
    const paused = await this.runs.pause(run, lease, { ...plan, stats: { nodesExecuted, nodesSkipped, nodesFailed } }, closing);
    if (!paused) return 'lost';
    this.publisher.runWaiting(paused);
    this.logger.log({ runId: String(run._id), nodeId: plan.inputRequest.nodeId, claim: run.claims }, 'run waiting for input');
    return 'finished';
  }

  /**
   * `closing`: the pool's close, done before any write (the terminal write's lease check may
   * overlap it). `pending`: the records the engine deferred and no write carried yet.
   */
  private async settle(
    run: RunDoc,
    lease: string,
    handle: RunHandle,
    outcome: RunOutcome & { status: RunCompletion['status'] },
    closing: Promise<void>,
    pending: ExecutionRecord[],
  ): Promise<ExecutionResult> {
    if (handle.cause === 'lease-lost' || handle.cause === 'shutdown') {
      await closing;
      if (handle.cause === 'lease-lost') return 'lost';
      // Handed back, the run's log keeps what this worker did (a resume would recompute it otherwise).
      if (pending.length > 0) await this.executions.saveExecutions(pending);
      await this.runs.release(run._id, lease);
      return 'handed-back';
    }
    const { nodesExecuted, nodesSkipped, nodesFailed } = outcome.stats;
    const completion: RunCompletion = {
      status: outcome.status,
      outputs: outcome.outputs,
      ...(outcome.error && { error: outcome.error }),
      stats: { nodesExecuted, nodesSkipped, nodesFailed },
      finishedAt: new Date(),
      executions: pending,
    };
    const finished = await this.runs.finish(run, lease, completion, closing);
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
