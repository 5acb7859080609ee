import { EdgeStates } from './edge-states.js';
import { ENGINE_ERROR_CODES, EngineError, toEngineError } from './errors.js';
import { ExecutionBudget } from './execution-budget.js';
import { executeNode, type NodeExecutionOutcome } from './execute-node.js';
import { buildExecutionRecord, type ExecutionFacts, type RedactInputs } from './execution-record.js';
import { DEFAULT_HANDLE, END_NODE_TYPE, ERROR_HANDLE, type WorkflowGraph } from './graph.js';
import { resolveLimits, type EngineLimits } from './limits.js';
import type { NodeRegistry } from './registry.js';
import { readPersistedProgress, standsOnResume } from './resume.js';
import type { RunError, RunEvent, RunOutcome } from './run-events.js';
import type { ExecutionRecord, RunStore } from './run-store.js';
import { itemScope, recordsByItem, scopedServices, type EnclosingRun } from './subgraph-scope.js';
import type { EngineServices, NodeDefinition, SubgraphOutcome, SubgraphRequest, WorkflowDefinition } from './types.js';
import { graphOf, structureIssues } from './prepared-definitions.js';

export interface RunWorkflowOptions {
  runId: string;
  workflow: WorkflowDefinition;
  /** The run's inputs, already validated against `inputSchema` by the host. */
  inputs: Record<string, unknown>;
  registry: NodeRegistry;
  services: EngineServices;
  store: RunStore;
  limits?: Partial<EngineLimits>;
  /** Abort to cancel the run: it ends `canceled`, in-flight nodes see their signal aborted. */
  signal?: AbortSignal;
  /** When the run first started (epoch ms), so that a resumed run keeps its original deadline. */
  startedAt?: number;
  onEvent?: (event: RunEvent) => void;
  redact?: RedactInputs;
  /**
   * Called once, as soon as no node that acts on the world can start or is running any more
   * (everything left is pure, or nothing is left) — possibly while the last such node's record is
   * still being saved. The host may end its connections then (a run's MCP sessions), alongside
   * that save instead of after it. Not called when a store failure ends the run.
   */
  onSideEffectsOver?: () => void;
  /**
   * Set for a sub-graph's run only (a map's item): what it shares with the run it is part of. It
   * arms no deadline timer of its own (the enclosing run's deadline stops the node that runs it,
   * whose signal cancels it), and it writes its records to `store` and its node events to the
   * run's, named as the run names its nodes, with no wrapper per item.
   */
  enclosing?: EnclosingRun;
}

const NO_RECORDS: readonly ExecutionRecord[] = Object.freeze([]);

/** The reason a finished run's own timers are stopped with: any value but a fresh DOMException, which costs a stack trace. */
const TIMER_STOPPED = Object.freeze({ reason: 'the run finished' });

/** The state of one `runWorkflow` call; see `runWorkflow`. */
class WorkflowRun {
  private readonly graph: WorkflowGraph;
  private readonly edges: EdgeStates;
  private readonly limits: EngineLimits;
  private readonly controller = new AbortController();
  private readonly published = new Map<string, Record<string, unknown>>();
  private readonly undecided = new Set<string>();
  private readonly ready: string[] = [];
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Resolves the wait of `drive` when a node settles (one promise per wait, none per node in flight). */
  private wake: () => void = () => undefined;
  private storeFailure?: { error: unknown };
  private readonly attempts = new Set<AbortController>();
  private rejectRunStopped: (reason: unknown) => void = () => undefined;
  private readonly runStopped = new Promise<never>((_resolve, reject) => (this.rejectRunStopped = reject));
  private readonly endOutputs: Record<string, unknown> = {};
  /** Nodes that paused for input: their branches stop there, the rest of the run goes on. */
  private readonly waiting: string[] = [];
  private readonly stats = { nodesExecuted: 0, nodesSkipped: 0, nodesFailed: 0 };
  private readonly beganAt: number;
  private readonly budget: ExecutionBudget;
  private runError?: RunError;
  private sideEffectsOver = false;
  private canceledByHost = false;
  private seq = 0;
  /** Every record persisted before this call (a sub-graph's resume reads its own from here). */
  private loaded: readonly ExecutionRecord[] = NO_RECORDS;
  private loadedByItem?: Map<string, ExecutionRecord[]>;

  constructor(private readonly options: RunWorkflowOptions) {
    this.graph = graphOf(options.workflow);
    this.edges = new EdgeStates(this.graph);
    this.limits = resolveLimits(options.limits);
    this.budget = options.enclosing?.budget ?? new ExecutionBudget(this.limits.maxNodeExecutions);
    this.beganAt = options.services.clock.now();
    this.runStopped.catch(() => undefined);
  }

  async run(): Promise<RunOutcome> {
    const issues = structureIssues(this.options.workflow, this.options.registry);
    if (issues.length > 0) {
      const [first] = issues;
      const message = `workflow is invalid (${issues.length} problem(s)), first: ${first.path} ${first.message}`;
      this.emit({ type: 'run.started', runId: this.options.runId, at: this.beganAt, resumedExecutions: 0 });
      return this.finish({ code: ENGINE_ERROR_CODES.workflowInvalid, message, path: first.path });
    }
    const resumed = await this.replayPersisted();
    if (!this.options.enclosing)
      this.emit({ type: 'run.started', runId: this.options.runId, at: this.beganAt, resumedExecutions: resumed });
    const { signal } = this.options;
    const onHostAbort = (): void => this.stop(new EngineError(ENGINE_ERROR_CODES.runCanceled, 'the run was canceled'), true);
    const stopDeadline = this.armDeadline();
    if (signal?.aborted) onHostAbort();
    signal?.addEventListener('abort', onHostAbort, { once: true });
    try {
      await this.decide([...this.undecided]);
      await this.drive();
      this.noteSideEffectsOver();
    } catch (storeFailure) {
      this.stop(toEngineError(storeFailure, ENGINE_ERROR_CODES.runStoreFailed), false);
      await Promise.allSettled(this.inFlight.values());
      throw storeFailure;
    } finally {
      signal?.removeEventListener('abort', onHostAbort);
      stopDeadline?.abort(TIMER_STOPPED);
    }
    return this.finish(this.runError);
  }

  private async drive(): Promise<void> {
    for (;;) {
      this.startReadyNodes();
      if (this.inFlight.size === 0) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      if (this.storeFailure) throw this.storeFailure.error;
    }
  }

  private armDeadline(): AbortController | undefined {
    if (this.options.enclosing) return undefined;
    const stopper = new AbortController();
    const { clock } = this.options.services;
    const remaining = (this.options.startedAt ?? this.beganAt) + this.limits.runDeadlineMs - this.beganAt;
    clock.sleep(Math.max(0, remaining), stopper.signal).then(
      () =>
        this.stop(
          new EngineError(ENGINE_ERROR_CODES.runDeadlineExceeded, `the run passed its deadline of ${this.limits.runDeadlineMs} ms`),
          false,
        ),
      () => undefined,
    );
    return stopper;
  }

  /** Ends the run early (first reason wins): nothing new starts, in-flight nodes are aborted. */
  private stop(error: EngineError, byHost: boolean, nodeId?: string): void {
    if (this.runError) return;
    this.runError = { code: error.code, message: error.message, ...(nodeId && { nodeId }), ...(error.path && { path: error.path }) };
    this.canceledByHost = byHost;
    const reason = nodeId ? new EngineError(ENGINE_ERROR_CODES.runCanceled, `canceled: node "${nodeId}" failed`) : error;
    this.controller.abort(reason);
    this.rejectRunStopped(reason);
    for (const attempt of this.attempts) attempt.abort(reason);
  }

  private async replayPersisted(): Promise<number> {
    const { enclosing } = this.options;
    const records = enclosing ? enclosing.persisted : await this.options.store.loadExecutions(this.options.runId);
    this.loaded = records;
    const { kept, lastSeq, failed } = readPersistedProgress(records, this.graph);
    this.seq = lastSeq;
    // A map's item that failed stays failed (a collected failure is not retried by the map's next execution).
    if (enclosing && failed?.error) {
      this.stats.nodesFailed += 1;
      this.stop(new EngineError(failed.error.code, failed.error.message), false, failed.nodeId);
    }
    for (const id of this.graph.nodeIds()) this.undecided.add(id);
    for (const record of kept) {
      this.undecided.delete(record.nodeId);
      this.countRecord(record);
      if (record.status === 'succeeded' && record.state) this.publish(record.nodeId, record.type, record.state.outputs);
      if (record.status === 'failed' && record.error) this.published.set(record.nodeId, { error: record.error });
      this.edges.resolveOutgoing(record.nodeId, record.activeHandles);
    }
    return kept.length;
  }

  /** Looks at nodes whose incoming edges changed: queue the ready, skip (and propagate) the skipped. */
  private async decide(nodeIds: string[]): Promise<void> {
    const queue = [...nodeIds];
    for (let next = 0; next < queue.length && !this.runError; next += 1) {
      const id = queue[next];
      if (!this.undecided.has(id)) continue;
      const readiness = this.edges.readiness(id);
      if (readiness === 'waiting') continue;
      this.undecided.delete(id);
      if (readiness === 'ready') {
        this.ready.push(id);
        continue;
      }
      const node = this.graph.node(id) as NodeDefinition;
      const now = this.options.services.clock.now();
      await this.persist(node, now, { status: 'skipped', attempt: 0, startedAt: now, inputs: {}, outputs: {}, activeHandles: [] });
      queue.push(...this.edges.resolveOutgoing(id, []));
    }
  }

  private startReadyNodes(): void {
    while (!this.runError && this.ready.length > 0 && this.inFlight.size < this.limits.concurrency) {
      const id = this.ready.shift() as string;
      if (!this.budget.take()) {
        const message = `the run reached its limit of ${this.limits.maxNodeExecutions} node executions`;
        this.stop(new EngineError(ENGINE_ERROR_CODES.maxNodeExecutions, message), false);
        return;
      }
      this.stats.nodesExecuted += 1;
      this.inFlight.set(id, this.runNode(this.graph.node(id) as NodeDefinition));
    }
  }

  /** What every node's plan shares, made once per run. */
  private readonly trackAttempt = (attempt: AbortController): (() => void) => {
    if (this.controller.signal.aborted) attempt.abort(this.controller.signal.reason);
    this.attempts.add(attempt);
    return () => this.attempts.delete(attempt);
  };
  private readonly publishedOf = (nodeId: string) => this.published.get(nodeId);
  private readonly attemptStarted = (node: NodeDefinition, attempt: number, at: number): void =>
    this.emit({ type: 'node.started', runId: this.options.runId, at, nodeId: this.keyOf(node.id), nodeType: node.type, attempt });

  /** A node's name in the run: its id, or in a sub-graph `<prefix><id>` (what the log, the events and keyed ports use). */
  private keyOf(nodeId: string): string {
    const scope = this.options.enclosing?.scope;
    return scope ? scope.prefix + nodeId : nodeId;
  }

  /** Never rejects: a store failure is kept for `drive` to throw. */
  private async runNode(node: NodeDefinition): Promise<void> {
    try {
      const { runId, workflow, services, registry } = this.options;
      const outcome = await executeNode({
        runId,
        workflow,
        node,
        nodeKey: this.keyOf(node.id),
        nodePath: `/nodes/${this.graph.indexOf(node.id)}`,
        executor: registry.get(node.type) as NonNullable<ReturnType<NodeRegistry['get']>>,
        services,
        limits: this.limits,
        runSignal: this.controller.signal,
        runStopped: this.runStopped,
        trackAttempt: this.trackAttempt,
        published: this.publishedOf,
        runInputs: this.options.inputs,
        onAttemptStarted: this.attemptStarted,
        runSubgraph: this.runSubgraph,
      });
      await this.settleNode(node, outcome);
    } catch (error) {
      this.storeFailure ??= { error };
    } finally {
      this.inFlight.delete(node.id);
      this.wake();
    }
  }

  private async settleNode(node: NodeDefinition, outcome: NodeExecutionOutcome): Promise<void> {
    const { attempt, startedAt, inputs } = outcome;
    const finishedAt = this.options.services.clock.now();
    if (outcome.status === 'succeeded') {
      const { outputs, details } = outcome.result;
      const activeHandles = outcome.result.activeHandles ?? [DEFAULT_HANDLE];
      this.publish(node.id, node.type, outputs);
      await this.persist(node, finishedAt, { status: 'succeeded', attempt, startedAt, inputs, outputs, details, activeHandles });
      return this.decide(this.edges.resolveOutgoing(node.id, activeHandles));
    }
    const { error } = outcome;
    const failure = { attempt, startedAt, inputs, outputs: {}, error, details: error.details };
    if (outcome.status === 'failed' && error.code === ENGINE_ERROR_CODES.inputRequired) {
      this.waiting.push(...waitingNodesOf(error, this.keyOf(node.id)));
      await this.persist(node, finishedAt, { ...failure, status: 'waiting', activeHandles: [] });
      return;
    }
    if (outcome.status === 'canceled') {
      await this.persist(node, finishedAt, { ...failure, status: 'canceled', activeHandles: [] });
      return;
    }
    if (!node.catchError) {
      this.stop(error, false, node.id);
      await this.persist(node, finishedAt, { ...failure, status: 'failed', activeHandles: [] });
      return;
    }
    this.published.set(node.id, { error: { code: error.code, message: error.message } });
    await this.persist(node, finishedAt, { ...failure, status: 'failed', activeHandles: [ERROR_HANDLE] });
    return this.decide(this.edges.resolveOutgoing(node.id, [ERROR_HANDLE]));
  }

  private readonly nextSeq = (): number => this.options.enclosing?.nextSeq() ?? (this.seq += 1);

  /**
   * One item of a node's sub-graph: the same ports, limits, execution budget and deadline, its
   * records in this run's log under the node. A sub-graph that used up the run's node executions
   * stops the run too (a map collecting item errors would go on otherwise).
   */
  private readonly runSubgraph = async (nodeId: string, request: SubgraphRequest): Promise<SubgraphOutcome> => {
    const { runId, registry, services, store, redact, enclosing } = this.options;
    const scope = itemScope(enclosing?.scope, nodeId, request.index);
    const relative = `${nodeId}[${request.index}]/`;
    const outcome = await runWorkflow({
      runId,
      workflow: request.workflow,
      inputs: request.inputs,
      registry,
      services: scopedServices(services, relative),
      store,
      limits: this.limits,
      signal: request.signal,
      startedAt: this.options.startedAt ?? this.beganAt,
      redact,
      enclosing: { scope, nextSeq: this.nextSeq, budget: this.budget, persisted: this.persistedOf(relative), emit: this.emitThrough },
    });
    const { error } = outcome;
    if (error?.code === ENGINE_ERROR_CODES.maxNodeExecutions) this.stop(new EngineError(error.code, error.message), false);
    return outcome;
  };

  /** An item's records from before this call (none on a first run: nothing is grouped then). */
  private persistedOf(relative: string): readonly ExecutionRecord[] {
    if (this.loaded.length === 0) return NO_RECORDS;
    this.loadedByItem ??= recordsByItem(this.loaded);
    return this.loadedByItem.get(relative) ?? NO_RECORDS;
  }

  private publish(nodeId: string, type: string, outputs: Record<string, unknown>): void {
    this.published.set(nodeId, outputs);
    if (type === END_NODE_TYPE) Object.assign(this.endOutputs, outputs);
  }

  /**
   * Saves the record. One a resume keeps, of a node that acts on the world, is durable before
   * anything downstream happens, so that a crash cannot make it run twice; the others (pure
   * nodes, skips, executions a resume runs again) are deferred when the store can.
   */
  private async persist(node: NodeDefinition, finishedAt: number, facts: ExecutionFacts): Promise<void> {
    const scope = this.options.enclosing?.scope;
    const place = scope
      ? { runId: this.options.runId, seq: this.nextSeq(), node, finishedAt, nodeKey: scope.prefix + node.id, itemPath: scope.itemPath }
      : { runId: this.options.runId, seq: this.nextSeq(), node, finishedAt };
    const record = buildExecutionRecord(place, facts, this.limits, this.options.redact);
    if (record.status === 'failed') this.stats.nodesFailed += 1;
    if (record.status === 'skipped') this.stats.nodesSkipped += 1;
    const { store, registry } = this.options;
    const durable = record.status !== 'skipped' && registry.get(node.type)?.pure !== true && standsOnResume(record);
    if (durable || !store.deferExecution) {
      const saved = store.saveExecution(record);
      if (!this.canActOnWorldAfter(node.id)) this.noteSideEffectsOver();
      await saved;
    } else store.deferExecution(record);
    this.emit({ type: 'node.finished', runId: this.options.runId, at: finishedAt, record });
  }

  /** Whether a node other than `nodeId` that acts on the world is running or may still start. */
  private canActOnWorldAfter(nodeId: string): boolean {
    // A stopped run starts nothing new: only what is in flight can still act.
    const pending = this.runError ? [...this.inFlight.keys()] : [...this.undecided, ...this.ready, ...this.inFlight.keys()];
    return pending.some((id) => id !== nodeId && this.actsOnWorld(id));
  }

  private actsOnWorld(nodeId: string): boolean {
    const type = this.graph.node(nodeId)?.type;
    return type === undefined || this.options.registry.get(type)?.pure !== true;
  }

  private noteSideEffectsOver(): void {
    if (this.sideEffectsOver) return;
    this.sideEffectsOver = true;
    try {
      this.options.onSideEffectsOver?.();
    } catch {
      // The host's problem; the run goes on.
    }
  }

  private countRecord(record: ExecutionRecord): void {
    if (record.status === 'skipped') this.stats.nodesSkipped += 1;
    else {
      this.stats.nodesExecuted += 1;
      this.budget.count();
    }
    if (record.status === 'failed') this.stats.nodesFailed += 1;
  }

  private finish(error: RunError | undefined): RunOutcome {
    const { clock } = this.options.services;
    const status = error ? (this.canceledByHost ? 'canceled' : 'failed') : this.waiting.length > 0 ? 'waiting' : 'succeeded';
    const outcome: RunOutcome = { status, outputs: this.endOutputs, stats: { ...this.stats, durationMs: clock.now() - this.beganAt } };
    if (error) outcome.error = error;
    if (status === 'waiting') outcome.waitingNodes = [...this.waiting];
    if (!this.options.enclosing) this.emit({ type: 'run.finished', runId: this.options.runId, at: clock.now(), outcome });
    return outcome;
  }

  private readonly emitThrough = (event: RunEvent): void => this.emit(event);

  /** A broken listener must not break the run. A sub-graph's own run.started / run.finished stay inside. */
  private emit(event: RunEvent): void {
    const { enclosing } = this.options;
    if (enclosing) {
      if (event.type === 'node.started' || event.type === 'node.finished') enclosing.emit(event);
      return;
    }
    try {
      this.options.onEvent?.(event);
    } catch {
      // The host's problem to log; the run goes on.
    }
  }
}

/** The nodes a node that ended INPUT_REQUIRED leaves waiting: itself, or a map's waiting items' nodes (`details.waitingNodes`, named in the run). */
function waitingNodesOf(error: EngineError, nodeKey: string): string[] {
  const inner = error.details?.waitingNodes;
  return Array.isArray(inner) && inner.length > 0 ? (inner as string[]) : [nodeKey];
}

/**
 * Runs (or resumes) a workflow to a terminal outcome. Node executions are persisted through
 * `store` as they finish; executions already persisted for `runId` are not run again.
 * Resolves with the outcome for every workflow-level result (failure, cancel, deadline);
 * rejects only when the RunStore fails, since the run's state is then unknown: the host retries,
 * which resumes.
 */
export function runWorkflow(options: RunWorkflowOptions): Promise<RunOutcome> {
  return new WorkflowRun(options).run();
}
