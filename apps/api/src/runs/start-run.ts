import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { SECRET_BOX, splitSecretInputs, WorkflowRepository, type SecretBox } from '#workflow/nest';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { LiveWorkflows } from '../workflows/live-workflows.js';
import { ReferenceGrants } from '../workflows/reference-grants.js';
import type { StartRunBody } from './dto/run-requests.js';
import { RunAdmission, type StartedRun, type StartRunOptions } from './run-admission.js';
import { runInputProblems, withDefaults } from './run-inputs.js';

/** `POST /workflows/:id/runs`: inputs checked against the pinned version's `inputSchema`, then the run accepted. */
@Injectable()
export class StartRun {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly live: LiveWorkflows,
    private readonly admission: RunAdmission,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly grants: ReferenceGrants,
  ) {}

  /** `caller`: the key asking; a workflow-limited one may not run a version that uses toolsets or providers outside its grant. */
  async execute(
    workflowId: string,
    request: StartRunBody,
    options: StartRunOptions,
    caller?: Pick<Principal, 'workflows'>,
  ): Promise<StartedRun> {
    const workflow = await this.live.find(workflowId);
    if (!workflow) throw new NotFoundError('Workflow', workflowId);
    const versionNumber = request.version ?? workflow.latestVersion;
    const version = await this.workflows.findVersion(workflowId, versionNumber);
    if (!version) throw new NotFoundError('Workflow version', `${workflowId}/${versionNumber}`);
    await this.grants.refuseRunOutsideGrant(caller, workflowId, version.definition);
    const inputs = withDefaults(version.definition.inputSchema, request.inputs);
    const problems = runInputProblems(version.definition.inputSchema, inputs);
    if (problems.length > 0) throw new InvalidRequestError(problems, 'The run inputs do not match the workflow inputSchema');
    // Secret inputs (header templates' tokens) are sealed apart and shown as ***, here and in every log of the run.
    const { shown, secrets } = splitSecretInputs(version.definition.inputSchema, inputs);
    const secretInputs = Object.keys(secrets).length > 0 ? this.box.seal(JSON.stringify(secrets)) : undefined;
    // The request as sent (not the resolved version), so a replay after a new PUT still matches; no secret goes into the hash.
    const asked = splitSecretInputs(version.definition.inputSchema, request.inputs).shown;
    const requestHash = createHash('sha256')
      .update(JSON.stringify([request.version ?? null, asked]))
      .digest('hex');
    return this.admission.accept(
      { workflowId, version: versionNumber, inputs: shown, requestHash, ...(secretInputs && { secretInputs }) },
      options,
    );
  }
}
