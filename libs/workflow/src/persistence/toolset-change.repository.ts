import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { findPage, type Page, type PageRequest } from './paging.js';
import type { ToolDiff } from './tool-diff.js';
import { TOOLSET_CHANGE_MODEL, type ToolsetChangeDoc, type ToolsetChangeSource } from './toolset-change.schema.js';

export interface ToolsetChange extends ToolDiff {
  id: string;
  at: Date;
  source: ToolsetChangeSource;
}

/** A toolset's history of snapshots that changed something, newest first. */
@Injectable()
export class ToolsetChangeRepository {
  constructor(@InjectModel(TOOLSET_CHANGE_MODEL) private readonly model: Model<ToolsetChangeDoc>) {}

  async record(toolsetId: string, source: ToolsetChangeSource, diff: ToolDiff): Promise<void> {
    await this.model.create({ toolsetId, at: new Date(), source, ...diff });
  }

  /** Newest first by `_id`; the cursor is the last item's id (as every list of the API). */
  page(toolsetId: string, page: PageRequest): Promise<Page<ToolsetChange>> {
    return findPage(this.model, { toolsetId }, page, (doc) => ({
      id: String(doc._id),
      at: doc.at,
      source: doc.source,
      added: doc.added,
      removed: doc.removed,
      changed: doc.changed,
    }));
  }
}
