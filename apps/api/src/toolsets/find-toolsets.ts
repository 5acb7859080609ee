import { Injectable } from '@nestjs/common';
import { ToolsetRepository, type ToolsetRecord } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import { toolsetSummaryView, type ToolsetSummaryView } from './dto/toolset-views.js';

/** GET /toolsets (summaries, newest first, paged) and GET /toolsets/:id (with every tool). */
@Injectable()
export class FindToolsets {
  constructor(private readonly toolsets: ToolsetRepository) {}

  async list(page: PageQuery): Promise<Page<ToolsetSummaryView>> {
    return mapPage(await this.toolsets.page(page), toolsetSummaryView);
  }

  async get(id: string): Promise<ToolsetRecord> {
    const toolset = await this.toolsets.findById(id);
    if (!toolset) throw new NotFoundError('Toolset', id);
    return toolset;
  }
}
