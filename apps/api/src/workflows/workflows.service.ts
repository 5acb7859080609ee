import { Injectable } from '@nestjs/common';
import { WorkflowRepository } from '#workflow';
import { NotFoundError } from '../common/api-errors.js';
import { findPage, parsePageQuery } from '../common/pagination.js';
import { parseRequest } from '../common/zod-validation.js';
import { versionParamSchema } from './dto/workflow.dto.js';
import { WorkflowChecker } from './workflow-checker.js';
import { referencesOf, toVersionSummary, toVersionView, toWorkflowSummary, toWorkflowView } from './workflow-views.js';

/** Workflow definitions: every change a new immutable version; delete is soft. */
@Injectable()
export class WorkflowsService {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly checker: WorkflowChecker,
  ) {}

  /** `actor`: id of the API key asking (`createdBy` / `updatedBy`). */
  async create(body: unknown, actor: string) {
    const definition = await this.checker.require(body);
    return toWorkflowView(await this.workflows.create(definition, referencesOf(definition.nodes), actor));
  }

  async update(id: string, body: unknown, actor: string) {
    await this.requireLive(id);
    const definition = await this.checker.require(body);
    const stored = await this.workflows.addVersion(id, definition, referencesOf(definition.nodes), actor);
    if (!stored) throw new NotFoundError('Workflow', id);
    return toWorkflowView(stored);
  }

  async get(id: string) {
    const stored = await this.workflows.findLatest(id);
    if (!stored) throw new NotFoundError('Workflow', id);
    return toWorkflowView(stored);
  }

  async getVersion(id: string, versionParam: string) {
    await this.requireLive(id);
    const number = parseRequest(versionParamSchema, versionParam, 'path');
    const version = await this.workflows.findVersion(id, number);
    if (!version) throw new NotFoundError('Workflow version', `${id}/${versionParam}`);
    return toVersionView(version);
  }

  /** `only`: the workflows a limited API key may see (null: all). */
  list(query: Record<string, unknown>, only: readonly string[] | null = null) {
    const filter = only ? { deletedAt: null, _id: { $in: [...only] } } : { deletedAt: null };
    return findPage(this.workflows.workflows, filter, parsePageQuery(query), toWorkflowSummary);
  }

  async listVersions(id: string, query: Record<string, unknown>) {
    await this.requireLive(id);
    return findPage(this.workflows.versions, { workflowId: id }, parsePageQuery(query), toVersionSummary);
  }

  async remove(id: string): Promise<void> {
    if (!(await this.workflows.softDelete(id))) throw new NotFoundError('Workflow', id);
  }

  /** `{valid, errors}`: the same checks as create, without saving. */
  async validate(body: unknown) {
    const { errors } = await this.checker.check(body);
    return { valid: errors.length === 0, errors };
  }

  private async requireLive(id: string): Promise<void> {
    if (!(await this.workflows.findLive(id))) throw new NotFoundError('Workflow', id);
  }
}
