import { Injectable } from '@nestjs/common';
import { ToolsetRepository, type ToolsetRecord } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { mapPage, type Page, type PageQuery } from '../common/pagination.js';
import { toolsetSummaryView, type ToolsetSummaryView } from './dto/toolset-views.js';
import { ToolsetAuthStates } from './authorize-toolset.js';

/** GET /toolsets (summaries, newest first, paged) and GET /toolsets/:id (with every tool). */
@Injectable()
export class FindToolsets {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly authStates: ToolsetAuthStates,
  ) {}

  async list(page: PageQuery): Promise<Page<ToolsetSummaryView>> {
    const found = await this.toolsets.page(page);
    const states = new Map(await Promise.all(found.items.map(async (toolset) => [toolset.id, await this.authStates.of(toolset)] as const)));
    return mapPage(found, (toolset) => toolsetSummaryView(toolset, states.get(toolset.id)));
  }

  async get(id: string): Promise<ToolsetRecord> {
    const toolset = await this.toolsets.findById(id);
    if (!toolset) throw new NotFoundError('Toolset', id);
    return toolset;
  }
}
