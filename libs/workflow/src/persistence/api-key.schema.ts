import { Schema, type Types } from 'mongoose';

/**
 * An API key. Only the SHA-256 of the key is stored (`hash`, unique): the key itself is shown once
 * at creation and cannot be recovered. `prefix` is the key's first characters, for people to
 * tell keys apart; it is far too short to help a guess.
 */
export const API_KEY_MODEL = 'ApiKey';
export const API_KEYS_COLLECTION = 'api_keys';

export interface ApiKeyDocument {
  _id: Types.ObjectId;
  name: string;
  /** Hex SHA-256 of the whole key. */
  hash: string;
  prefix: string;
  scopes: string[];
  /** Workflow ids the key is limited to; null = every workflow. */
  workflows: string[] | null;
  /** MCP server ids the key's `mcp` scope reaches; null = every published server. */
  mcpServers: string[] | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Id of the key that created this one; null for a seeded key. */
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ApiKeySchema = new Schema<ApiKeyDocument>(
  {
    name: { type: String, required: true },
    hash: { type: String, required: true },
    prefix: { type: String, required: true },
    scopes: { type: [String], required: true },
    workflows: { type: [String], default: null },
    mcpServers: { type: [String], default: null },
    expiresAt: { type: Date, default: null },
    lastUsedAt: { type: Date, default: null },
    revokedAt: { type: Date, default: null },
    createdBy: { type: String, default: null },
  },
  { collection: API_KEYS_COLLECTION, timestamps: true, versionKey: false, minimize: false },
);
ApiKeySchema.index({ hash: 1 }, { unique: true });
