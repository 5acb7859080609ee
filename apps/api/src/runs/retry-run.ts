import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { RunRepository, toRunView, WorkflowRepository } from '#workflow/nest';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
import { ReferenceGrants } from '../workflows/reference-grants.js';
import { RunAdmission, type StartedRun, type StartRunOptions } from './run-admission.js';
import { isTerminal } from './run-waiter.js';

/** `POST /runs/:id/retry`: a new run of the same version with the same inputs. */
@Injectable()
export class RetryRun {
  constructor(
    private readonly runs: RunRepository,
    private readonly workflows: WorkflowRepository,
    private readonly admission: RunAdmission,
    private readonly grants: ReferenceGrants,
  ) {}

  /** `caller`: the key asking; a workflow-limited one may not run a version that uses toolsets or providers outside its grant. */
  async execute(runId: string, options: StartRunOptions, caller?: Pick<Principal, 'workflows'>): Promise<StartedRun> {
    const source = await this.runs.findById(runId);
    if (!source) throw new NotFoundError('Run', runId);
    if (!isTerminal(source))
      throw new ConflictError('RUN_NOT_FINISHED', `run ${runId} is ${source.status}; only a finished run can be retried`);
    const workflowId = String(source.workflowId);
    if (!(await this.workflows.findLive(workflowId))) throw new NotFoundError('Workflow', workflowId);
    const version = await this.workflows.findVersion(workflowId, source.version);
    if (version) await this.grants.refuseRunOutsideGrant(caller, workflowId, version.definition);
    const { inputs } = toRunView(source);
    const requestHash = createHash('sha256')
      .update(JSON.stringify(['retry', runId]))
      .digest('hex');
    const secretInputs = source.secretInputs;
    return this.admission.accept(
      { workflowId, version: source.version, inputs, requestHash, retryOf: runId, ...(secretInputs && { secretInputs }) },
      options,
    );
  }
}
