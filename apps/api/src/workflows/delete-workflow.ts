import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';

/** `DELETE /workflows/:id`: soft — hidden from the API; its versions and runs stay readable. */
@Injectable()
export class DeleteWorkflow {
  constructor(private readonly workflows: WorkflowRepository) {}

  async execute(id: string): Promise<void> {
    if (!(await this.workflows.softDelete(id))) throw new NotFoundError('Workflow', id);
  }
}
