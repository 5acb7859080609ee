import { Schema, type Types } from 'mongoose';

export const TOOLSET_CHANGE_MODEL = 'ToolsetChange';

/** What made mcpflow take a new snapshot: the server's `notifications/tools/list_changed`, or a `POST /toolsets/:id/refresh`. */
/** `scheduled`: the toolset's periodic refresh (`refreshIntervalMs`). */
export type ToolsetChangeSource = 'list_changed' | 'refresh' | 'scheduled';

/** One new snapshot that differed from the one before: the tools added, removed and changed (names, sorted). */
export interface ToolsetChangeDoc {
  _id: Types.ObjectId;
  toolsetId: string;
  at: Date;
  source: ToolsetChangeSource;
  added: string[];
  removed: string[];
  changed: string[];
}

export const ToolsetChangeSchema = new Schema<ToolsetChangeDoc>(
  {
    toolsetId: { type: String, required: true },
    at: { type: Date, required: true },
    source: { type: String, required: true, enum: ['list_changed', 'refresh', 'scheduled'] },
    added: { type: [String], default: [] },
    removed: { type: [String], default: [] },
    changed: { type: [String], default: [] },
  },
  { collection: 'toolset_changes', versionKey: false },
);
ToolsetChangeSchema.index({ toolsetId: 1, _id: -1 });
