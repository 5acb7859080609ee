import { ENGINE_ERROR_CODES, EngineError, toEngineError } from './errors.js';
import type { EngineLimits } from './limits.js';
import { resolveNodeInputs, resolveValueSource, type PublishedValues } from './resolve-inputs.js';
import type {
  EngineServices,
  NodeDefinition,
  NodeExecutionContext,
  NodeExecutor,
  NodeResult,
  SubgraphOutcome,
  SubgraphRequest,
  WorkflowDefinition,
} from './types.js';

export interface NodeExecutionPlan {
  runId: string;
  workflow: WorkflowDefinition;
  node: NodeDefinition;
  /** The node's name in the run (NodeExecutionContext.nodeKey). */
  nodeKey: string;
  nodePath: string;
  executor: NodeExecutor;
  services: EngineServices;
  limits: EngineLimits;
  /** Aborted when the run is canceled, fails elsewhere or passes its deadline; the reason says which. */
  runSignal: AbortSignal;
  /** Rejects with `runSignal`'s reason when it aborts (never resolves): what an attempt races against. */
  runStopped: Promise<never>;
  /**
   * Registers an attempt's controller so that the run aborts it along with the run (returns the
   * unregister function). Cheaper than `AbortSignal.any` and adds no listener to `runSignal`.
   */
  trackAttempt(controller: AbortController): () => void;
  published: PublishedValues;
  runInputs: Record<string, unknown>;
  /** Runs a sub-graph of `nodeId` as part of the run (see NodeExecutionContext.runSubgraph). */
  runSubgraph(nodeId: string, request: SubgraphRequest): Promise<SubgraphOutcome>;
  /** `at`: the first attempt's is the execution's `startedAt`, so that a start rebuilt from the record matches the live one. */
  onAttemptStarted(node: NodeDefinition, attempt: number, at: number): void;
}

interface AttemptFacts {
  attempt: number;
  startedAt: number;
  /** Resolved inputs of the last attempt ({} when they could not be resolved). */
  inputs: Record<string, unknown>;
}

export type NodeExecutionOutcome =
  (AttemptFacts & { status: 'succeeded'; result: NodeResult }) | (AttemptFacts & { status: 'failed' | 'canceled'; error: EngineError });

/** Failures that another attempt cannot change. */
const NOT_RETRYABLE = new Set<string>([
  ENGINE_ERROR_CODES.nodeInputInvalid,
  ENGINE_ERROR_CODES.inputRequired,
  ENGINE_ERROR_CODES.mcpCallInDoubt,
  ENGINE_ERROR_CODES.runClaimStale,
]);

const noop = (): void => undefined;

/** The reason an attempt's own timer is stopped with: any value but a fresh DOMException, which costs a stack trace. */
const TIMER_STOPPED = Object.freeze({ reason: 'the attempt finished' });

function abortReason(signal: AbortSignal): EngineError {
  return toEngineError(signal.reason, ENGINE_ERROR_CODES.runCanceled);
}

/**
 * One attempt: the executor raced against the run's stop and, with a `timeoutMs`, the node's own
 * timer, so an executor that ignores its signal still cannot hold the run. Without a timeout the
 * attempt's signal is the run's own and the race is against the run's one `runStopped` promise:
 * no controller, timer or listener per node (most of a pure node's cost in the engine). Each race
 * leaves a reaction on `runStopped` until the run ends; it holds the node's result, which the run
 * holds anyway (downstream nodes read it), and there are at most RUN_MAX_NODE_EXECUTIONS of them.
 */
async function runAttempt(
  plan: NodeExecutionPlan,
  context: NodeExecutionContext,
  attemptController?: AbortController,
): Promise<NodeResult> {
  const { aroundNode } = plan.services;
  const execution = aroundNode
    ? aroundNode(plan.node, context.attempt, () => plan.executor.execute(context))
    : (async () => plan.executor.execute(context))();
  execution.catch(() => undefined);
  if (!attemptController) return Promise.race([execution, plan.runStopped]);
  const { signal } = attemptController;
  const stopTimer = new AbortController();
  plan.services.clock.sleep(plan.node.timeoutMs as number, stopTimer.signal).then(
    () =>
      attemptController.abort(
        new EngineError(ENGINE_ERROR_CODES.nodeTimeout, `node "${plan.node.id}" did not finish within ${plan.node.timeoutMs} ms`),
      ),
    () => undefined,
  );
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([execution, aborted]);
  } finally {
    stopTimer.abort(TIMER_STOPPED);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Resolves inputs and executes a node, with its retry policy and timeout. Never throws.
 * Retries wait a fixed `backoffMs` between attempts (the policy has one delay, no multiplier).
 */
export async function executeNode(plan: NodeExecutionPlan): Promise<NodeExecutionOutcome> {
  const { node, nodePath, executor, services, runSignal } = plan;
  const startedAt = services.clock.now();
  const maxAttempts = node.retry?.maxAttempts ?? 1;
  let inputs: Record<string, unknown> = {};
  for (let attempt = 1; ; attempt += 1) {
    plan.onAttemptStarted(node, attempt, attempt === 1 ? startedAt : services.clock.now());
    // Only a node with its own timeout needs a signal of its own (see runAttempt).
    const attemptController = node.timeoutMs === undefined ? undefined : new AbortController();
    const signal = attemptController?.signal ?? runSignal;
    const untrack = attemptController ? plan.trackAttempt(attemptController) : noop;
    try {
      if (runSignal.aborted) throw runSignal.reason;
      // No await (a microtask per node) for a type that declares no inputs.
      const declared = executor.describeInputs
        ? await executor.describeInputs({ node, nodePath, catalog: services.catalog, workflow: plan.workflow })
        : undefined;
      inputs = resolveNodeInputs(node, nodePath, declared, plan.published);
      const context: NodeExecutionContext = {
        runId: plan.runId,
        node,
        nodeKey: plan.nodeKey,
        inputs,
        attempt,
        signal,
        services,
        runInputs: plan.runInputs,
        callTimeoutMs: node.timeoutMs ?? plan.limits.callTimeoutMs,
        resolveValue: (source) => resolveValueSource(source, plan.published, nodePath),
        runSubgraph: (request) => plan.runSubgraph(node.id, request),
      };
      const result = await runAttempt(plan, context, attemptController);
      untrack();
      return { status: 'succeeded', attempt, startedAt, inputs, result };
    } catch (thrown) {
      untrack();
      if (runSignal.aborted) return { status: 'canceled', attempt, startedAt, inputs, error: abortReason(runSignal) };
      const error = signal.aborted ? abortReason(signal) : toEngineError(thrown);
      if (attempt >= maxAttempts || NOT_RETRYABLE.has(error.code)) return { status: 'failed', attempt, startedAt, inputs, error };
      try {
        await services.clock.sleep(node.retry?.backoffMs ?? 0, runSignal);
      } catch {
        return { status: 'canceled', attempt, startedAt, inputs, error: abortReason(runSignal) };
      }
    }
  }
}
