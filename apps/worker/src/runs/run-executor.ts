import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  CHILD_RUNS_EXTRA,
  ENGINE_ERROR_CODES,
  NODE_SECRETS_EXTRA,
  RUN_SECRETS_EXTRA,
  runWorkflow,
  systemClock,
  type EngineLimits,
  type NodeRegistry,
  type RunError,
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
  RunJournal,
  RunJournals,
  RunQueueProducer,
  RunRepository,
  StaleClaimError,
  type AppConfig,
  type RunRecord,
  type RunCompletion,
} from '#workflow/nest';
import type { RunHandle } from './active-runs.js';
import { ChildRunStarter } from './child-runs.js';
import { FencedToolInvoker } from './fenced-tool-invoker.js';
import { JournalRunStore } from './journal-run-store.js';
import { createRedactor } from './redact-inputs.js';
import { nodeSpans } from './node-spans.js';
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
  /** Executions that wrote their run's terminal state: their session records stay (see `execute`). */
  private readonly ended = new WeakSet<RunHandle>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Optional() @Inject(ENGINE_EXTRAS) private readonly extras: Record<string, unknown> | undefined,
    private readonly runs: RunRepository,
    private readonly journals: RunJournals,
    private readonly preparer: RunPreparer,
    private readonly sessions: RunSessions,
    private readonly publisher: RunEventsPublisher,
    private readonly queue: RunQueueProducer,
    private readonly children: ChildRunStarter,
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
    const early = plan && isStoredId(handle.runId) ? this.preparer.prepare(handle.runId, plan, taken) : undefined;
    const run = await taken.catch(async (error: unknown) => {
      await early?.close();
      throw error;
    });
    let prepared: PreparedRun | undefined = early;
    try {
      if (!run || run.claims > MAX_RUN_CLAIMS) {
        await early?.close();
        if (!run) return 'not-active';
        return await this.fail(handle, run, lease, {
          code: ENGINE_ERROR_CODES.runRecoveryExhausted,
          message: `the run was started ${MAX_RUN_CLAIMS} times without finishing`,
        });
      }
      if (run.cancelRequestedAt) handle.stop('cancel');
      if (!prepared?.matches(run)) {
        await prepared?.close();
        prepared = this.preparer.prepare(run.id, { workflowId: run.workflowId, version: run.version }, taken);
      }
      try {
        return await this.run(handle, run, lease, prepared);
      } finally {
        await prepared.close();
      }
    } finally {
      // After a pause, hand-back or loss, only now (the run's result is not kept waiting), so the
      // next claim finds no record of sessions that are already ended (a crash before this costs it
      // a DELETE answered 404 for each). Once the run is ended no claim comes any more: the records
      // stay, inert (nothing reads them), and go with the run (retention) — one delete fewer per run.
      if (!this.ended.has(handle)) await Promise.all([...new Set([early, prepared])].map((means) => means?.forgetSessions()));
    }
  }

  /**
   * The engine with the run's prepared means, under a claim of the run's journal (fenced writes,
   * run-journal.ts); the pool is closed before the terminal write. A claim that finds the run
   * ended by an earlier one finishes it from that record; one that loses the run stops ('lost').
   */
  private async run(handle: RunHandle, run: RunRecord, lease: string, prepared: PreparedRun): Promise<ExecutionResult> {
    const [version, journal] = await Promise.all([
      prepared.definition,
      this.fenced(() => this.journals.claim(handle.runId, run.claims === 1)),
    ]);
    if (journal === 'lost') return 'lost';
    if (journal.ended) {
      await prepared.close();
      return this.complete(run, lease, handle, journal.ended);
    }
    if (!version) {
      await prepared.close();
      return this.fail(handle, run, lease, {
        code: ENGINE_ERROR_CODES.workflowVersionNotFound,
        message: `workflow version ${run.workflowId}/${run.version} is gone`,
      });
    }
    const catalog = prepared.toolsets;
    const store = new JournalRunStore(journal);
    const tools = new FencedToolInvoker(
      prepared.invoker,
      journal,
      () => handle.stop('lease-lost'),
      () => store.takePending(),
    );
    const redact = await createRedactor(version, catalog);
    const outcome = await this.fenced(() =>
      runWorkflow({
        runId: handle.runId,
        workflow: version,
        inputs: run.inputs,
        registry: this.registry,
        services: {
          tools,
          catalog,
          clock: systemClock,
          pauses: prepared.input,
          extras: {
            ...this.extras,
            [RUN_SECRETS_EXTRA]: prepared.secretInputs,
            [NODE_SECRETS_EXTRA]: prepared.nodeSecrets,
            [CHILD_RUNS_EXTRA]: this.children.portFor(run),
          },
          aroundNode: nodeSpans(handle.runId),
        },
        store,
        limits: this.limits,
        signal: handle.signal,
        startedAt: deadlineStartOf(run).getTime(),
        onEvent: this.publisher.engineEvents(run.claims),
        redact,
        // No MCP call can come any more: the sessions end alongside the last tool record's save, not after it.
        onSideEffectsOver: () => void prepared.close().catch(() => undefined),
      }),
    );
    if (outcome === 'lost') return 'lost';
    const { status } = outcome;
    const handedOver = handle.cause === 'lease-lost' || handle.cause === 'shutdown';
    if (status === 'waiting' && !handedOver) return this.pause(handle, run, lease, outcome, prepared, journal, store.takePending());
    // Handed over, a waiting outcome writes nothing terminal (settle returns before the status is read).
    const settled = { ...outcome, status: status === 'waiting' ? 'canceled' : status } as const;
    return this.settle(run, lease, handle, settled, prepared.close(), journal, store.takePending());
  }

  /** `work`, or 'lost' when the store refused one of its writes because another claim took the run. */
  private async fenced<T>(work: () => Promise<T>): Promise<T | 'lost'> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof StaleClaimError) return 'lost';
      throw error;
    }
  }

  /**
   * running → waiting: the pool closed (nothing is held open), the deferred records written (the
   * waiting node's among them: its log item shows the request), then the request and the answers
   * so far stored on the run.
   */
  private async pause(
    handle: RunHandle,
    run: RunRecord,
    lease: string,
    outcome: RunOutcome,
    prepared: PreparedRun,
    journal: RunJournal,
    pending: ExecutionRecord[],
  ): Promise<ExecutionResult> {
    const closing = prepared.close();
    const plan = await prepared.input.pauseOn(outcome.waitingNodes ?? [], new Date());
    if (!plan) {
      await closing;
      return this.fail(handle, run, lease, {
        code: ENGINE_ERROR_CODES.runWorkerFailed,
        message: 'a node waited for input the worker did not see',
      });
    }
    if ((await this.fenced(() => journal.markPause(pending))) === 'lost') return 'lost';
    const { nodesExecuted, nodesSkipped, nodesFailed } = outcome.stats;
    const paused = await this.runs.pause(run, lease, { ...plan, stats: { nodesExecuted, nodesSkipped, nodesFailed } }, closing);
    if (!paused) return 'lost';
    const resumeAt = plan.inputRequest.resumeAt;
    if (resumeAt) await this.scheduleWake(paused, resumeAt, plan.inputRequest.requestedAt);
    this.publisher.runWaiting(paused);
    await this.children.wokenAfterPause(paused);
    this.logger.log({ runId: run.id, nodeId: plan.inputRequest.nodeId, claim: run.claims }, 'run waiting for input');
    return 'finished';
  }

  /**
   * `closing`: the pool's close, done before any write (the terminal write's lease check may
   * overlap it). `pending`: the records the engine deferred and no write carried yet.
   */
  private async settle(
    run: RunRecord,
    lease: string,
    handle: RunHandle,
    outcome: RunOutcome & { status: RunCompletion['status'] },
    closing: Promise<void>,
    journal: RunJournal,
    pending: ExecutionRecord[],
  ): Promise<ExecutionResult> {
    if (handle.cause === 'lease-lost' || handle.cause === 'shutdown') {
      await closing;
      if (handle.cause === 'lease-lost') return 'lost';
      // Handed back, the run's log keeps what this worker did (a resume would recompute it otherwise).
      if (pending.length > 0 && (await this.fenced(() => journal.appendRecords(pending))) === 'lost') return 'lost';
      await this.runs.release(run.id, lease);
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
    if ((await this.fenced(() => journal.markEnd(completion))) === 'lost') {
      await closing;
      return 'lost';
    }
    return this.complete(run, lease, handle, completion, closing);
  }

  /** The terminal write of a completion the journal holds (this claim's, or an earlier one's that did not reach the run). */
  private async complete(
    run: RunRecord,
    lease: string,
    handle: RunHandle,
    completion: RunCompletion,
    closing?: Promise<void>,
  ): Promise<ExecutionResult> {
    const finished = await this.runs.finish(run, lease, completion, closing);
    if (!finished) return 'lost';
    this.ended.add(handle);
    this.publisher.runFinished(finished);
    await this.children.ended(finished);
    this.logger.log({ runId: handle.runId, status: finished.status, durationMs: finished.durationMs, claim: run.claims }, 'run finished');
    return 'finished';
  }

  /** The paused run's scheduled resume. Without Redis now (or if Redis loses it), the recovery sweep schedules it again once it is overdue. */
  private async scheduleWake(run: RunRecord, at: Date, pausedAt: Date): Promise<void> {
    try {
      await this.queue.scheduleWake(run.id, at, pausedAt, { workflowId: run.workflowId, version: run.version });
    } catch (error) {
      this.logger.warn(
        { err: error, runId: run.id },
        'scheduled resume not enqueued (Redis unreachable): the recovery sweep schedules it once it is overdue',
      );
    }
  }

  private async fail(handle: RunHandle, run: RunRecord, lease: string, error: RunError): Promise<ExecutionResult> {
    const finished = await this.runs.finish(run, lease, { status: 'failed', error, finishedAt: new Date() });
    if (!finished) return 'lost';
    this.ended.add(handle);
    this.publisher.runFinished(finished);
    await this.children.ended(finished);
    this.logger.warn({ runId: run.id, code: error.code }, error.message);
    return 'finished';
  }
}
