import { Injectable } from '@nestjs/common';
import {
  NodeExecutionRepository,
  RunRepository,
  toExecutionRecord,
  toLogItem,
  toRunView,
  type LogItem,
  type RunView,
} from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, parsePageQuery, type Page } from '../common/pagination.js';
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

  async list(query: Record<string, unknown>): Promise<Page<RunView>> {
    const filter = parseRequest(runListQuerySchema, { workflowId: query.workflowId, status: query.status }, 'query');
    return mapPage(await this.runs.page(filter, parsePageQuery(query)), toRunView);
  }

  async logs(id: string, query: Record<string, unknown>): Promise<Page<LogItem>> {
    const page = parseRequest(logPageQuerySchema, { limit: query.limit, cursor: query.cursor }, 'query');
    if (!(await this.runs.findById(id))) throw new NotFoundError('Run', id);
    const docs = await this.executions.logAfter(id, page.cursor ?? 0, page.limit + 1);
    const items = docs.slice(0, page.limit).map((doc) => toLogItem(toExecutionRecord(doc)));
    return { items, nextCursor: docs.length > page.limit ? String(items[items.length - 1].seq) : null };
  }
}
