import { Schema, type Types } from 'mongoose';
import type { SealedConfigSecret } from '../secrets/config-secrets.js';

/**
 * A workflow is a name plus an append-only list of immutable versions. `workflows` holds one
 * document per workflow (what lists show, denormalised from its latest version); each `PUT`
 * inserts a `workflow_versions` document, and runs pin `(workflowId, version)`.
 */
export const WORKFLOW_MODEL = 'Workflow';
export const WORKFLOW_VERSION_MODEL = 'WorkflowVersion';

export interface WorkflowDoc {
  _id: Types.ObjectId;
  name: string;
  description?: string;
  latestVersion: number;
  /** Toolsets the latest version uses: `DELETE /toolsets/:id` answers 409 while a live workflow lists it. */
  toolsetIds: string[];
  /**
   * Providers (`config.providerId` of `llm`/`agent` nodes) the latest version uses: `DELETE /providers/:id`
   * answers 409 while a live workflow lists it. Workflows saved before this field existed lack it:
   * missing means empty (they match no provider until their next version is saved).
   */
  providerIds?: string[];
  /** Soft delete: the workflow disappears from the API, its runs and versions stay readable. */
  deletedAt?: Date | null;
  /** Ids of the API keys that created the workflow and saved its latest version (absent before keys existed). */
  createdBy?: string | null;
  updatedBy?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface WorkflowVersionDoc {
  _id: Types.ObjectId;
  workflowId: Types.ObjectId;
  version: number;
  /** The whole definition `{name, description?, inputSchema?, nodes, edges}` as JSON text. */
  definition: string;
  /** The secret values of its nodes' configs, sealed (the definition holds `"***"` in their place); absent before they existed. */
  secrets?: SealedConfigSecret[];
  /** Id of the API key that saved this version. */
  createdBy?: string | null;
  createdAt: Date;
}

export const WorkflowSchema = new Schema<WorkflowDoc>(
  {
    name: { type: String, required: true },
    description: { type: String },
    latestVersion: { type: Number, required: true },
    toolsetIds: { type: [String], default: [] },
    providerIds: { type: [String], default: [] },
    deletedAt: { type: Date, default: null },
    createdBy: { type: String, default: null },
    updatedBy: { type: String, default: null },
  },
  { collection: 'workflows', timestamps: true, versionKey: false },
);
WorkflowSchema.index({ deletedAt: 1, _id: -1 });
WorkflowSchema.index({ toolsetIds: 1 });
WorkflowSchema.index({ providerIds: 1 });

export const WorkflowVersionSchema = new Schema<WorkflowVersionDoc>(
  {
    workflowId: { type: Schema.Types.ObjectId, required: true },
    version: { type: Number, required: true },
    definition: { type: String, required: true },
    secrets: {
      type: [new Schema({ nodeId: String, path: String, origin: String, sealed: String }, { _id: false })],
      default: undefined,
    },
    createdBy: { type: String, default: null },
  },
  { collection: 'workflow_versions', timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
// The commit point of a new version: two concurrent PUTs cannot both take the same number.
WorkflowVersionSchema.index({ workflowId: 1, version: 1 }, { unique: true });
