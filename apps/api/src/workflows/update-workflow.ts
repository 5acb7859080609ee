import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { WorkflowBody } from './dto/workflow-requests.js';
import { toWorkflowView } from './dto/workflow-views.js';
import { WorkflowChecker } from './workflow-checker.js';
import { referencesOf } from './workflow-references.js';

/** `PUT /workflows/:id`: every change is a new immutable version. */
@Injectable()
export class UpdateWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
  ) {}

  async execute(id: string, body: WorkflowBody) {
    if (!(await this.workflows.findLive(id))) throw new NotFoundError('Workflow', id);
    const definition = await this.checker.require(body);
    const stored = await this.workflows.addVersion(id, definition, referencesOf(definition.nodes));
    if (!stored) throw new NotFoundError('Workflow', id);
    return toWorkflowView(stored);
  }
}
