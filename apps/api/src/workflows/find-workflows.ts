import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type PageQuery } from '../common/pagination.js';
import { toVersionSummary, toVersionView, toWorkflowSummary, toWorkflowView } from './dto/workflow-views.js';
import { WorkflowChecker } from './workflow-checker.js';

/**
 * GET /workflows (live ones, newest first), /workflows/:id (latest version, with the `problems` it
 * would meet if run now: tools gone or changed since it was saved), and the versions of one.
 */
@Injectable()
export class FindWorkflows {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
  ) {}

  async get(id: string) {
    const stored = await this.workflows.findLatest(id);
    if (!stored) throw new NotFoundError('Workflow', id);
    return { ...toWorkflowView(stored), problems: await this.checker.problemsNow(stored.version.definition) };
  }

  /** `only`: the workflows a limited API key may see (null: all). */
  async list(page: PageQuery, only: readonly string[] | null = null) {
    return mapPage(await this.workflows.pageLive(page, only), toWorkflowSummary);
  }

  async getVersion(id: string, number: number) {
    await this.requireLive(id);
    const version = await this.workflows.findVersion(id, number);
    if (!version) throw new NotFoundError('Workflow version', `${id}/${number}`);
    return toVersionView(version);
  }

  async listVersions(id: string, page: PageQuery) {
    await this.requireLive(id);
    return mapPage(await this.workflows.pageVersions(id, page), toVersionSummary);
  }

  private async requireLive(id: string): Promise<void> {
    if (!(await this.workflows.findLive(id))) throw new NotFoundError('Workflow', id);
  }
}
