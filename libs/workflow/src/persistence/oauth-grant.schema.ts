import { Schema } from 'mongoose';

/**
 * One OAuth grant of a toolset (per end-user subject later; '' = the toolset's own): the grant
 * (tokens, client, discovered metadata) sealed whole by the SecretBox, and in clear only what
 * answers show — its state, when the access token expires, why a person must act.
 * Apart from the toolset document, so a refresh never races a PATCH of the toolset.
 */
export const OAUTH_GRANT_MODEL = 'OAuthGrant';
export const OAUTH_GRANTS_COLLECTION = 'oauth_grants';

/** `authorized`: a usable grant is stored; `needs_authorization`: a person must authorize (again). */
export const OAUTH_STATES = ['authorized', 'needs_authorization'] as const;
export type OAuthState = (typeof OAUTH_STATES)[number];

export interface OAuthGrantDocument {
  toolsetId: string;
  subject: string;
  state: OAuthState;
  /** The sealed JSON of libs/mcp's OAuthGrant; absent when there is none. */
  sealed?: string;
  /** Origin of the server the grant was obtained for. */
  origin?: string;
  expiresAt?: Date;
  /** Why the grant was lost (never a token). */
  reason?: string;
  /** A larger scope the server asked for (403 insufficient_scope): the next authorization asks for it. */
  requiredScope?: string;
  updatedAt: Date;
}

export const OAuthGrantSchema = new Schema<OAuthGrantDocument>(
  {
    toolsetId: { type: String, required: true },
    subject: { type: String, default: '' },
    state: { type: String, required: true, enum: OAUTH_STATES },
    sealed: { type: String },
    origin: { type: String },
    expiresAt: { type: Date },
    reason: { type: String },
    requiredScope: { type: String },
    updatedAt: { type: Date, required: true },
  },
  { collection: OAUTH_GRANTS_COLLECTION, versionKey: false, minimize: true },
);
OAuthGrantSchema.index({ toolsetId: 1, subject: 1 }, { unique: true });
