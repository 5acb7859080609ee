import { Inject, Injectable } from '@nestjs/common';
import { referencesOf, type NodeRegistry } from '#workflow';
import { McpServerRepository, NODE_REGISTRY, WorkflowRepository } from '#workflow/nest';
import type { Principal } from '../api-keys/api-key-authenticator.js';
import { NotFoundError } from '../common/api-errors.js';
import { ToolListChanges } from '../mcp-servers/tool-list-changes.js';
import type { WorkflowBody } from './dto/workflow-requests.js';
import { toWorkflowView } from './dto/workflow-views.js';
import { LiveWorkflows } from './live-workflows.js';
import { ReferenceGrants } from './reference-grants.js';
import { WorkflowChecker } from './workflow-checker.js';
import { WorkflowSealing } from './workflow-sealing.js';

/** `PUT /workflows/:id`: every change is a new immutable version. */
@Injectable()
export class UpdateWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
    private readonly sealing: WorkflowSealing,
    @Inject(NODE_REGISTRY) private readonly registry: NodeRegistry,
    private readonly mcpServers: McpServerRepository,
    private readonly toolListChanges: ToolListChanges,
    private readonly grants: ReferenceGrants,
    private readonly live: LiveWorkflows,
  ) {}

  /** `caller`: the API key asking (the version's `createdBy`, the workflow's `updatedBy`; a workflow-limited one keeps to its grant). */
  async execute(id: string, body: WorkflowBody, caller?: Pick<Principal, 'keyId' | 'workflows'>) {
    const actor = caller?.keyId;
    if (!(await this.workflows.findLive(id))) throw new NotFoundError('Workflow', id);
    const definition = await this.checker.require(body, await this.grants.of(caller, id), { selfId: id, runnable: caller?.workflows });
    const references = referencesOf(this.registry, definition.nodes);
    const stored = await this.sealing.save(definition, (seal) => this.workflows.addVersion(id, seal, references, actor));
    if (!stored) throw new NotFoundError('Workflow', id);
    await this.live.changed(id);
    // Its MCP tool (schema, description) may have changed: clients of the servers publishing it re-list.
    await this.toolListChanges.publish((await this.mcpServers.findPublishing(id)).map((server) => server.id));
    return toWorkflowView(stored);
  }
}
