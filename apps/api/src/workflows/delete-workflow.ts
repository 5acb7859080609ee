import { Injectable } from '@nestjs/common';
import { McpServerRepository, ScheduleQueue, ScheduleRepository, WebhookRepository, WorkflowRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
import { LiveWorkflows } from './live-workflows.js';

/**
 * `DELETE /workflows/:id`: soft — hidden from the API; its versions and runs stay readable.
 * Refused (409 WORKFLOW_PUBLISHED) while an MCP server publishes it as a tool. Its schedules and
 * inbound webhooks go with it (they would start runs of a workflow that no longer exists).
 */
@Injectable()
export class DeleteWorkflow {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly mcpServers: McpServerRepository,
    private readonly schedules: ScheduleRepository,
    private readonly scheduleQueue: ScheduleQueue,
    private readonly webhooks: WebhookRepository,
    private readonly live: LiveWorkflows,
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
    await this.live.changed(id);
    // Best effort on Redis: a timer left behind removes itself at its next firing (its schedule is gone), or at the workers' reconciliation.
    for (const scheduleId of await this.schedules.idsOf(id)) await this.scheduleQueue.remove(scheduleId).catch(() => undefined);
    await this.schedules.deleteOf(id);
    await this.webhooks.deleteOf(id);
  }
}
