import { Inject, Injectable } from '@nestjs/common';
import { planReplay, upstreamChanges, type ExecutionRecord, type NodeRegistry, type WorkflowDefinition } from '#workflow';
import {
  newStoredId,
  NODE_REGISTRY,
  NodeExecutionRepository,
  RunRepository,
  SECRET_BOX,
  secretInputKeys,
  splitSecretInputs,
  toRunView,
  WorkflowRepository,
  type RunRecord,
  type SecretBox,
} from '#workflow/nest';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { ReferenceGrants } from '../workflows/reference-grants.js';
import type { ReplayRunBody } from './dto/run-requests.js';
import { RunAdmission, type StartedRun, type StartRunOptions } from './run-admission.js';
import { runInputProblems, withDefaults } from './run-inputs.js';
import { isTerminal } from './run-waiter.js';

/**
 * `POST /runs/:id/replay`: a new run of the same pinned version whose nodes upstream of
 * `fromNodeId` are not executed again. Their records are copied from the earlier run into the
 * new run's log (marked `replayed`) before the run exists, so the worker resumes the new run from
 * them like any resumed run: no tool is called for them, and the run executes from `fromNodeId` on.
 * With `version`, another version runs, provided the nodes upstream of `fromNodeId` are the same there.
 */
@Injectable()
export class ReplayRun {
  constructor(
    private readonly runs: RunRepository,
    private readonly executions: NodeExecutionRepository,
    private readonly workflows: WorkflowRepository,
    private readonly admission: RunAdmission,
    private readonly grants: ReferenceGrants,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async execute(runId: string, body: ReplayRunBody, options: StartRunOptions, caller?: Pick<Principal, 'workflows'>): Promise<StartedRun> {
    const source = await this.runs.findById(runId);
    if (!source) throw new NotFoundError('Run', runId);
    if (!isTerminal(source)) {
      throw new ConflictError('RUN_NOT_FINISHED', `run ${runId} is ${source.status}; only a finished run can be replayed`);
    }
    const workflowId = source.workflowId;
    if (!(await this.workflows.findLive(workflowId))) throw new NotFoundError('Workflow', workflowId);
    const versionNumber = body.version ?? source.version;
    const version = await this.workflows.findVersion(workflowId, versionNumber);
    if (!version) throw new NotFoundError('Workflow version', `${workflowId}/${versionNumber}`);
    await this.grants.refuseRunOutsideGrant(caller, workflowId, version.definition);
    if (versionNumber !== source.version) await this.refuseChangedUpstream(workflowId, source.version, version.definition, body.fromNodeId);
    const plan = planReplay(version.definition, this.registry, await this.recordsOf(source), body.fromNodeId);
    if ('reason' in plan) {
      const problem = {
        path: '/fromNodeId',
        code: plan.reason === 'unknown-node' ? 'REF_UNKNOWN_NODE' : 'NODE_NOT_REACHED',
        message: plan.message,
      };
      if (plan.reason === 'unknown-node') throw new InvalidRequestError([problem], plan.message);
      throw new InvalidRequestError([problem], plan.message, 'NODE_NOT_REACHED');
    }
    const { inputSchema } = version.definition;
    // The earlier run's secret inputs are not carried over: a replay that needs them is given them again.
    const secretKeys = new Set(secretInputKeys(inputSchema));
    const earlierInputs = Object.fromEntries(Object.entries(toRunView(source).inputs).filter(([key]) => !secretKeys.has(key)));
    const inputs = withDefaults(inputSchema, body.inputs ?? earlierInputs);
    const problems = runInputProblems(inputSchema, inputs);
    if (problems.length > 0) throw new InvalidRequestError(problems, 'The run inputs do not match the workflow inputSchema');
    const { shown, secrets } = splitSecretInputs(inputSchema, inputs);
    const secretInputs = Object.keys(secrets).length > 0 ? this.box.seal(JSON.stringify(secrets)) : undefined;
    const id = newStoredId();
    // Written before the run exists: no worker can claim it without them.
    if (plan.records.length > 0) {
      await this.executions.saveExecutions(plan.records.map((record, index) => ({ ...record, runId: id, seq: index + 1 })));
    }
    return this.admission.accept(
      { id, workflowId, version: versionNumber, inputs: shown, replayOf: runId, ...(secretInputs && { secretInputs }) },
      options,
    );
  }

  /** 409 `UPSTREAM_CHANGED` naming the nodes upstream of `fromNodeId` that `next` changed since the earlier run's version. */
  private async refuseChangedUpstream(workflowId: string, earlier: number, next: WorkflowDefinition, fromNodeId: string): Promise<void> {
    const ran = await this.workflows.findVersion(workflowId, earlier);
    if (!ran || !next.nodes.some((node) => node.id === fromNodeId)) return;
    const changed = upstreamChanges(ran.definition, next, fromNodeId);
    if (changed.length === 0) return;
    const problems = changed.map((nodeId) => ({
      path: '/version',
      code: 'UPSTREAM_CHANGED',
      message: `node "${nodeId}" (upstream of "${fromNodeId}") differs from version ${earlier}`,
    }));
    throw new InvalidRequestError(
      problems,
      `the version asked changes node(s) ${changed.map((id) => `"${id}"`).join(', ')} upstream of "${fromNodeId}": their recorded outputs do not hold there`,
      'UPSTREAM_CHANGED',
    );
  }

  /** Every record of the earlier run: the stored ones (with their outputs for resume) and those its terminal write carried. */
  private async recordsOf(run: RunRecord): Promise<ExecutionRecord[]> {
    const stored = await this.executions.loadExecutions(run.id);
    const seen = new Set(stored.map((record) => record.seq));
    return [...stored, ...run.finalExecutions().filter((record) => !seen.has(record.seq))];
  }
}
