import { Injectable, Logger } from '@nestjs/common';
import { ProviderRepository, WorkflowRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';

/** `DELETE /providers/:id`: refused (409 PROVIDER_IN_USE) while a live workflow's latest version uses the provider. */
@Injectable()
export class DeleteProvider {
  private readonly logger = new Logger(DeleteProvider.name);

  constructor(
    private readonly providers: ProviderRepository,
    private readonly workflows: WorkflowRepository,
  ) {}

  async execute(id: string): Promise<void> {
    if (!(await this.providers.findById(id))) throw new NotFoundError('Provider', id);
    const user = await this.workflows.findLiveReferencing({ providerId: id });
    if (user) {
      const which = `"${user.name}" (${user.workflowId})`;
      throw new ConflictError('PROVIDER_IN_USE', `Provider ${id} is used by the latest version of workflow ${which}`);
    }
    if (!(await this.providers.delete(id))) throw new NotFoundError('Provider', id);
    this.logger.log({ providerId: id }, 'provider deleted');
  }
}
