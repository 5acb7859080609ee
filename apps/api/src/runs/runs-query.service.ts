import { Injectable } from '@nestjs/common';
import { NodeExecutionRepository, RunRepository, toExecutionRecord, toLogItem, toRunView, type LogItem, type RunView } from '#workflow';
import { NotFoundError } from '../common/api-errors.js';
import { findPage, parsePageQuery, type Page } from '../common/pagination.js';
import { parseRequest } from '../common/zod-validation.js';
import { logPageQuerySchema, runListQuerySchema } from './dto/run.dto.js';

/** Reads: a run, runs newest first, a run's log in execution order. */
@Injectable()
export class RunsQueryService {
  constructor(
    private readonly runs: RunRepository,
    private readonly executions: NodeExecutionRepository,
  ) {}

  async get(id: string): Promise<RunView> {
    const run = await this.runs.findById(id);
    if (!run) throw new NotFoundError('Run', id);
    return toRunView(run);
  }

  /** `only`: the workflows a limited API key may see (null: all); a run of another is not listed. */
  list(query: Record<string, unknown>, only: readonly string[] | null = null): Promise<Page<RunView>> {
    const filters = parseRequest(runListQuerySchema, { workflowId: query.workflowId, status: query.status, triggeredBy: query.triggeredBy }, 'query');
    const workflowIds = only && filters.workflowId ? only.filter((id) => id === filters.workflowId) : only;
    const filter = {
      ...(filters.workflowId && { workflowId: filters.workflowId }),
      ...(workflowIds && { workflowId: { $in: [...workflowIds] } }),
      ...(filters.status && { status: filters.status }),
      ...(filters.triggeredBy && { triggeredBy: filters.triggeredBy }),
    };
    return findPage(this.runs.runs, filter, parsePageQuery(query), toRunView);
  }

  async logs(id: string, query: Record<string, unknown>): Promise<Page<LogItem>> {
    const page = parseRequest(logPageQuerySchema, { limit: query.limit, cursor: query.cursor }, 'query');
    if (!(await this.runs.findById(id))) throw new NotFoundError('Run', id);
    const docs = await this.executions.logAfter(id, page.cursor ?? 0, page.limit + 1);
    const items = docs.slice(0, page.limit).map((doc) => toLogItem(toExecutionRecord(doc)));
    return { items, nextCursor: docs.length > page.limit ? String(items[items.length - 1].seq) : null };
  }
}
