import { Injectable, Logger } from '@nestjs/common';
import { OAuthGrantRepository, ToolsetRepository, WorkflowRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';
import { ToolsetRefreshSchedule } from './refresh-schedule.js';

/** DELETE /toolsets/:id: refused (409 TOOLSET_IN_USE) while a workflow's latest version uses it. */
@Injectable()
export class DeleteToolset {
  private readonly logger = new Logger(DeleteToolset.name);

  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly workflows: WorkflowRepository,
    private readonly schedule: ToolsetRefreshSchedule,
    private readonly grants: OAuthGrantRepository,
  ) {}

  async execute(id: string): Promise<void> {
    if (!(await this.toolsets.exists(id))) throw new NotFoundError('Toolset', id);
    const user = await this.workflows.findLiveReferencing({ toolsetId: id });
    if (user) {
      const which = `"${user.name}" (${user.workflowId})`;
      throw new ConflictError('TOOLSET_IN_USE', `Toolset ${id} is used by the latest version of workflow ${which}`);
    }
    if (!(await this.toolsets.delete(id))) throw new NotFoundError('Toolset', id);
    await this.schedule.apply(id, undefined);
    await this.grants.deleteFor(id);
    this.logger.log({ toolsetId: id }, 'toolset deleted');
  }
}
