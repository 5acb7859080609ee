import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import type { ToolDiff } from './tool-diff.js';
import { TOOLSET_CHANGE_MODEL, type ToolsetChangeDoc, type ToolsetChangeSource } from './toolset-change.schema.js';

export interface ToolsetChange extends ToolDiff {
  id: string;
  at: Date;
  source: ToolsetChangeSource;
}

export interface ChangePage {
  items: ToolsetChange[];
  nextCursor: string | null;
}

/** A toolset's history of snapshots that changed something, newest first. */
@Injectable()
export class ToolsetChangeRepository {
  constructor(@InjectModel(TOOLSET_CHANGE_MODEL) private readonly model: Model<ToolsetChangeDoc>) {}

  async record(toolsetId: string, source: ToolsetChangeSource, diff: ToolDiff): Promise<void> {
    await this.model.create({ toolsetId, at: new Date(), source, ...diff });
  }

  /** Newest first by `_id`; the cursor is the last item's id (as every list of the API). */
  async page(toolsetId: string, page: { limit: number; cursor?: string }): Promise<ChangePage> {
    const filter = page.cursor ? { toolsetId, _id: { $lt: page.cursor } } : { toolsetId };
    const docs = await this.model
      .find(filter)
      .sort({ _id: -1 })
      .limit(page.limit + 1)
      .lean<ToolsetChangeDoc[]>()
      .exec();
    const items = docs.slice(0, page.limit).map((doc) => ({ id: String(doc._id), at: doc.at, source: doc.source, added: doc.added, removed: doc.removed, changed: doc.changed }));
    return { items, nextCursor: docs.length > page.limit ? (items.at(-1)?.id ?? null) : null };
  }
}
