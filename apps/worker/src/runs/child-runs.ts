import { Inject, Injectable, Logger } from '@nestjs/common';
import { validateArguments } from '#mcp';
import {
  ENGINE_ERROR_CODES,
  EngineError,
  FINISHED_RUN_STATUSES,
  MAX_WORKFLOW_DEPTH,
  type ChildRun,
  type ChildRunRequest,
  type ChildRuns,
} from '#workflow';
import {
  RunCancellation,
  RunQueueProducer,
  RunRepository,
  SECRET_BOX,
  splitSecretInputs,
  toRunView,
  withInputDefaults,
  WorkflowRepository,
  type RunRecord,
  type SecretBox,
} from '#workflow/nest';

function childOf(doc: RunRecord): ChildRun {
  const view = toRunView(doc);
  return {
    runId: view.id,
    version: view.version,
    status: view.status,
    ...(view.outputs && { outputs: view.outputs }),
    ...(view.error && { error: { code: view.error.code, message: view.error.message } }),
  };
}

/**
 * The runs `workflow` nodes start (their ChildRuns port), and the wake of a parent when its child
 * ends. A child is a run like any other — stored queued, then enqueued — whose idempotency key is
 * its parent and node, so a parent resumed after a crash finds the child it started instead of
 * starting a second one.
 */
@Injectable()
export class ChildRunStarter {
  private readonly logger = new Logger(ChildRunStarter.name);
  /** `<parentRunId>:<nodeId>` → the child a node of a run held here waits on, until that run pauses (no query for pauses of other nodes). */
  private readonly awaited = new Map<string, string>();

  constructor(
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly runs: RunRepository,
    private readonly workflows: WorkflowRepository,
    private readonly queue: RunQueueProducer,
    private readonly cancellation: RunCancellation,
  ) {}

  /** The port for one parent run (its depth decides whether it may start children). */
  portFor(parent: Pick<RunRecord, 'depth'>): ChildRuns {
    return {
      start: async (request) => {
        const child = await this.start(request, (parent.depth ?? 0) + 1);
        const key = `${request.parentRunId}:${request.nodeId}`;
        if ((FINISHED_RUN_STATUSES as readonly string[]).includes(child.status)) this.awaited.delete(key);
        else this.awaited.set(key, child.runId);
        return child;
      },
    };
  }

  private async start(request: ChildRunRequest, depth: number): Promise<ChildRun> {
    const { parentRunId, nodeId, workflowId } = request;
    const idempotencyKey = `child:${parentRunId}:${nodeId}`;
    const earlier = await this.runs.findByIdempotencyScope(`${workflowId}:${idempotencyKey}`);
    if (earlier) return this.started(earlier);
    if (depth > MAX_WORKFLOW_DEPTH) {
      throw new EngineError(
        ENGINE_ERROR_CODES.workflowDepthExceeded,
        `a sub-workflow ${depth} levels below the top-level run passes the limit of ${MAX_WORKFLOW_DEPTH}`,
      );
    }
    const workflow = await this.workflows.findLive(workflowId);
    const versionNumber = request.version ?? workflow?.latestVersion;
    const version = workflow && versionNumber !== undefined ? await this.workflows.findVersion(workflowId, versionNumber) : undefined;
    if (!version || versionNumber === undefined) {
      throw new EngineError(
        ENGINE_ERROR_CODES.workflowVersionNotFound,
        `workflow ${workflowId}${request.version ? ` version ${request.version}` : ''} not found`,
      );
    }
    const schema = version.definition.inputSchema;
    const inputs = withInputDefaults(schema, request.inputs);
    const checked = schema === undefined ? undefined : validateArguments(schema, inputs);
    if (checked && !checked.ok) {
      const problems = checked.errors.map((error) => `${error.path || '(inputs)'}: ${error.message}`).join('; ');
      throw new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, `the inputs do not fit workflow ${workflowId}'s inputSchema: ${problems}`);
    }
    const { shown, secrets } = splitSecretInputs(schema, inputs);
    const inserted = await this.runs.insert({
      workflowId,
      version: versionNumber,
      inputs: shown,
      ...(Object.keys(secrets).length > 0 && { secretInputs: this.box.seal(JSON.stringify(secrets)) }),
      idempotencyKey,
      parent: { runId: parentRunId, nodeId, depth },
    });
    return this.started(inserted.run);
  }

  /** A child found queued is enqueued again: its job id is the run's, so a run already on the queue is not added twice. */
  private async started(run: RunRecord): Promise<ChildRun> {
    if (run.status === 'queued') await this.queue.enqueue(run.id, { workflowId: run.workflowId, version: run.version });
    return childOf(run);
  }

  /**
   * A run ended: the parent waiting on it, if any, is woken; unless it succeeded, the children it
   * still has (waiting on an approval, a slow call...) are canceled with it, and theirs
   * (RunCancellation). A worker dying in between leaves the cascade to the sweep
   * (`cancelOrphans`), which finds active children of a failed or canceled parent.
   */
  async ended(run: RunRecord): Promise<void> {
    await this.wakeParent(run);
    await this.cancellation.afterEnd(run);
  }

  /**
   * A child ended: its parent, if it waits on that node, is queued again at once (not at its next
   * re-check). With `wokenAfterPause` on the other side, a child ending while its parent is still
   * pausing cannot be missed: either this sees the parent waiting, or the parent sees the child ended.
   */
  async wakeParent(child: RunRecord): Promise<void> {
    if (!child.parentRunId || !child.parentNodeId) return;
    await this.wake(String(child.parentRunId), child.parentNodeId);
  }

  /**
   * A run just paused on nodes whose child has already ended is queued again at once. A run may
   * wait on several children at once (a map's items each calling one), so every child its nodes
   * awaited during this claim is looked at, not only the one `inputRequest` names.
   */
  async wokenAfterPause(parent: RunRecord): Promise<void> {
    const mine = [...this.awaited].filter(([key]) => key.startsWith(`${parent.id}:`));
    for (const [key] of mine) this.awaited.delete(key);
    for (const [key, childRunId] of mine) {
      const child = await this.runs.findById(childRunId).catch(() => undefined);
      if (child && (FINISHED_RUN_STATUSES as readonly string[]).includes(child.status)) {
        await this.wake(parent.id, key.slice(parent.id.length + 1));
        return;
      }
    }
  }

  /**
   * A node of a map's item (`each[3]/call`) may wait beside others, while the run's `inputRequest`
   * names only the first: its child's end wakes the run whatever node that names (a run woken for
   * nothing pauses again at once).
   */
  private async wake(parentRunId: string, nodeId: string): Promise<void> {
    try {
      const parent = await this.runs.resumeWaitingOn(parentRunId, nodeId.includes('/') ? undefined : nodeId);
      if (parent) await this.queue.enqueue(parent.id, { workflowId: parent.workflowId, version: parent.version });
    } catch (error) {
      // The parent's re-check (CHILD_RECHECK_MS) or the recovery sweep takes it from here.
      this.logger.warn({ err: error, parentRunId }, 'parent run not woken');
    }
  }
}
