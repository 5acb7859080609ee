import { Injectable } from '@nestjs/common';
import { WorkflowChecker } from './workflow-checker.js';

/**
 * `POST /workflows/validate`: `{valid, errors}` with the same checks as create, without saving.
 * Its body is parsed here, not by a pipe: a body of the wrong shape is an answer (200, valid false), not a 400.
 */
@Injectable()
export class CheckWorkflow {
  constructor(private readonly checker: WorkflowChecker) {}

  async execute(body: unknown) {
    const { errors } = await this.checker.check(body);
    return { valid: errors.length === 0, errors };
  }
}
