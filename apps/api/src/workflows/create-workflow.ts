import { Inject, Injectable } from '@nestjs/common';
import { referencesOf, type NodeRegistry } from '#workflow';
import { NODE_REGISTRY, WorkflowRepository } from '#workflow/nest';
import type { WorkflowBody } from './dto/workflow-requests.js';
import { toWorkflowView } from './dto/workflow-views.js';
import { WorkflowChecker } from './workflow-checker.js';
import { WorkflowSealing } from './workflow-sealing.js';

/** `POST /workflows`: version 1 of a new workflow, once every check passes. */
@Injectable()
export class CreateWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
    private readonly sealing: WorkflowSealing,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
  ) {}

  /** `actor`: id of the API key asking (`createdBy`); `runnable`: the workflows it may run, hence call (null: all). */
  async execute(body: WorkflowBody, actor?: string, runnable?: readonly string[] | null) {
    const definition = await this.checker.require(body, undefined, { runnable });
    const references = referencesOf(this.registry, definition.nodes);
    return toWorkflowView(await this.sealing.save(definition, (seal) => this.workflows.create(seal, references, actor)));
  }
}
