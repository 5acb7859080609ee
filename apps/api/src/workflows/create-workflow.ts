import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow/nest';
import type { WorkflowBody } from './dto/workflow-requests.js';
import { toWorkflowView } from './dto/workflow-views.js';
import { WorkflowChecker } from './workflow-checker.js';
import { referencesOf } from './workflow-references.js';

/** `POST /workflows`: version 1 of a new workflow, once every check passes. */
@Injectable()
export class CreateWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
  ) {}

  async execute(body: WorkflowBody) {
    const definition = await this.checker.require(body);
    return toWorkflowView(await this.workflows.create(definition, referencesOf(definition.nodes)));
  }
}
