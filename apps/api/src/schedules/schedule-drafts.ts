import { Inject, Injectable } from '@nestjs/common';
import {
  cronProblem,
  openedInputs,
  SECRET_BOX,
  splitSecretInputs,
  WorkflowRepository,
  type NewSchedule,
  type ScheduleTiming,
  type SecretBox,
} from '#workflow/nest';
import { InvalidRequestError, NotFoundError, type ProblemDetail } from '../common/api-errors.js';
import { runInputProblems, withDefaults } from '../runs/run-inputs.js';

/** A schedule as asked (create, or a stored one with a PATCH merged in), its inputs in clear. */
export interface ScheduleDraft {
  timing: ScheduleTiming;
  inputs: Record<string, unknown>;
  version: number | 'latest';
  enabled: boolean;
  catchUp: NewSchedule['catchUp'];
  overlap: NewSchedule['overlap'];
}

/**
 * What may be saved: the workflow live, a pinned version existing, the cron expression and
 * timezone readable by croner, and the inputs fitting the version's `inputSchema` (the pinned one,
 * or the latest at save time; a firing checks again against the version it runs). Every problem
 * is reported with its path; the secret inputs come back sealed, like a run's.
 */
@Injectable()
export class ScheduleDrafts {
  constructor(
    private readonly workflows: WorkflowRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async check(workflowId: string, draft: ScheduleDraft): Promise<NewSchedule> {
    const workflow = await this.workflows.findLive(workflowId);
    if (!workflow) throw new NotFoundError('Workflow', workflowId);
    const problems: ProblemDetail[] = [];
    if ('cron' in draft.timing) {
      const problem = cronProblem(draft.timing.cron, draft.timing.timezone);
      const path = problem?.startsWith('unknown timezone') ? '/timezone' : '/cron';
      if (problem) problems.push({ path, code: 'CRON_INVALID', message: problem });
    }
    const versionNumber = draft.version === 'latest' ? workflow.latestVersion : draft.version;
    const version = await this.workflows.findVersion(workflowId, versionNumber);
    if (!version) {
      problems.push({ path: '/version', code: 'UNKNOWN_VERSION', message: `workflow ${workflowId} has no version ${versionNumber}` });
      throw new InvalidRequestError(problems, 'The schedule is invalid');
    }
    const schema = version.definition.inputSchema;
    problems.push(...runInputProblems(schema, withDefaults(schema, draft.inputs)));
    if (problems.length > 0) throw new InvalidRequestError(problems, 'The schedule is invalid');
    const { shown, secrets } = splitSecretInputs(schema, draft.inputs);
    return {
      workflowId,
      timing: draft.timing,
      inputs: shown,
      ...(Object.keys(secrets).length > 0 && { secretInputs: this.box.seal(JSON.stringify(secrets)) }),
      ...(draft.version !== 'latest' && { version: draft.version }),
      enabled: draft.enabled,
      catchUp: draft.catchUp,
      overlap: draft.overlap,
    };
  }

  /** A stored schedule's inputs with its secret ones opened (a PATCH that keeps them checks them again). */
  inputsOf(schedule: { inputs: Record<string, unknown>; secretInputs?: string }): Record<string, unknown> {
    return openedInputs(schedule, this.box);
  }
}
