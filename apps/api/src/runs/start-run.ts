import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow/nest';
import { InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import type { StartRunBody } from './dto/run-requests.js';
import { RunAdmission, type StartedRun, type StartRunOptions } from './run-admission.js';
import { runInputProblems, withDefaults } from './run-inputs.js';

/** `POST /workflows/:id/runs`: inputs checked against the pinned version's `inputSchema`, then the run accepted. */
@Injectable()
export class StartRun {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly admission: RunAdmission,
  ) {}

  async execute(workflowId: string, request: StartRunBody, options: StartRunOptions): Promise<StartedRun> {
    const workflow = await this.workflows.findLive(workflowId);
    if (!workflow) throw new NotFoundError('Workflow', workflowId);
    const versionNumber = request.version ?? workflow.latestVersion;
    const version = await this.workflows.findVersion(workflowId, versionNumber);
    if (!version) throw new NotFoundError('Workflow version', `${workflowId}/${versionNumber}`);
    const inputs = withDefaults(version.definition.inputSchema, request.inputs);
    const problems = runInputProblems(version.definition.inputSchema, inputs);
    if (problems.length > 0) throw new InvalidRequestError(problems, 'The run inputs do not match the workflow inputSchema');
    // The request as sent (not the resolved version), so a replay after a new PUT still matches.
    const requestHash = createHash('sha256').update(JSON.stringify([request.version ?? null, request.inputs])).digest('hex');
    return this.admission.accept({ workflowId, version: versionNumber, inputs, requestHash }, options);
  }
}
