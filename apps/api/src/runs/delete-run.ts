import { Injectable } from '@nestjs/common';
import { RunHistoryRepository } from '#workflow/nest';
import { ConflictError, NotFoundError } from '../common/api-errors.js';

/**
 * `DELETE /runs/:id`: a finished run goes with its node executions, MCP session records and
 * idempotency key (the same removal as retention). A run that is not finished stays: cancel it first.
 */
@Injectable()
export class DeleteRun {
  constructor(private readonly history: RunHistoryRepository) {}

  async execute(id: string): Promise<void> {
    const outcome = await this.history.deleteFinished(id);
    if (outcome.deleted) return;
    if (!outcome.status) throw new NotFoundError('Run', id);
    throw new ConflictError('RUN_NOT_FINISHED', `run ${id} is ${outcome.status}: only a finished run can be deleted (cancel it first)`);
  }
}
