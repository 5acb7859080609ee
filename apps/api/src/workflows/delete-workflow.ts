import { Injectable } from '@nestjs/common';
import { McpServerRepository, WorkflowRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';

/**
 * `DELETE /workflows/:id`: soft — hidden from the API; its versions and runs stay readable.
 * Refused (409 WORKFLOW_PUBLISHED) while an MCP server publishes it as a tool.
 */
@Injectable()
export class DeleteWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly mcpServers: McpServerRepository,
  ) {}

  async execute(id: string): Promise<void> {
    const [publisher] = await this.mcpServers.findPublishing(id);
    if (publisher) {
      throw new ConflictError(
        'WORKFLOW_PUBLISHED',
        `Workflow ${id} is published as a tool of MCP server "${publisher.name}" (${publisher.id})`,
      );
    }
    if (!(await this.workflows.softDelete(id))) throw new NotFoundError('Workflow', id);
  }
}
