import { Injectable } from '@nestjs/common';
import { ToolsetChangeRepository, ToolsetRepository, type ToolsetChangeSource } from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import type { Page, PageQuery } from '../common/pagination.js';

export interface ToolsetChangeView {
  id: string;
  at: string;
  source: ToolsetChangeSource;
  added: string[];
  removed: string[];
  changed: string[];
}

/** GET /toolsets/:id/changes: the snapshots that changed something, newest first, paged. */
@Injectable()
export class ToolsetChanges {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly changes: ToolsetChangeRepository,
  ) {}

  async list(id: string, page: PageQuery): Promise<Page<ToolsetChangeView>> {
    if (!(await this.toolsets.exists(id))) throw new NotFoundError('Toolset', id);
    const found = await this.changes.page(id, page);
    return { items: found.items.map((change) => ({ ...change, at: change.at.toISOString() })), nextCursor: found.nextCursor };
  }
}
