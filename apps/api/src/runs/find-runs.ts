import { Injectable } from '@nestjs/common';
import { NodeExecutionRepository, RunRepository, toLogItem, toRunView, type LogItem, type RunView } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import type { LogPageQuery, RunListQuery } from './dto/run-requests.js';

/** Reads: a run, runs newest first, a run's log in execution order. */
@Injectable()
export class FindRuns {
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
  async list(filter: RunListQuery, page: PageQuery, only: readonly string[] | null = null): Promise<Page<RunView>> {
    return mapPage(await this.runs.page({ ...filter, ...(only && { workflowIds: only }) }, page), toRunView);
  }

  async logs(id: string, page: LogPageQuery): Promise<Page<LogItem>> {
    const run = await this.runs.findById(id);
    if (!run) throw new NotFoundError('Run', id);
    const records = await this.executions.logOf(run, page.cursor ?? 0, page.limit + 1);
    const items = records.slice(0, page.limit).map(toLogItem);
    return { items, nextCursor: records.length > page.limit ? String(items[items.length - 1].seq) : null };
  }
}
