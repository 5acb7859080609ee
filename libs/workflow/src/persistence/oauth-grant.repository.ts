import { Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { grantServes, type OAuthGrant } from '#mcp';
import { SECRET_BOX } from '../secrets/secrets.module.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { OAUTH_GRANT_MODEL, type OAuthGrantDocument, type OAuthState } from './oauth-grant.schema.js';

/** What answers show of a toolset's authorization. */
export interface OAuthStatus {
  state: OAuthState;
  expiresAt?: Date;
  reason?: string;
  requiredScope?: string;
}

/** Grants of OAuth toolsets: the only place they are sealed and opened. */
@Injectable()
export class OAuthGrantRepository {
  constructor(
    @InjectModel(OAUTH_GRANT_MODEL) private readonly model: Model<OAuthGrantDocument>,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  /** The grant when it may be used for `serverUrl` (obtained for its origin); undefined otherwise. */
  async load(toolsetId: string, serverUrl: string, subject = ''): Promise<OAuthGrant | undefined> {
    const doc = await this.model.findOne({ toolsetId, subject }, { sealed: 1 }).lean<OAuthGrantDocument>().exec();
    if (!doc?.sealed) return undefined;
    const grant = JSON.parse(this.box.open(doc.sealed)) as OAuthGrant;
    return grantServes(grant, serverUrl) ? grant : undefined;
  }

  /** The grant held so far whatever its origin (its registered client is reused when the origin matches). */
  async previous(toolsetId: string, subject = ''): Promise<OAuthGrant | undefined> {
    const doc = await this.model.findOne({ toolsetId, subject }, { sealed: 1 }).lean<OAuthGrantDocument>().exec();
    return doc?.sealed ? (JSON.parse(this.box.open(doc.sealed)) as OAuthGrant) : undefined;
  }

  async save(toolsetId: string, grant: OAuthGrant, subject = ''): Promise<void> {
    const set: Partial<OAuthGrantDocument> = {
      state: 'authorized',
      sealed: this.box.seal(JSON.stringify(grant)),
      origin: grant.origin,
      updatedAt: new Date(),
    };
    const unset: Record<string, 1> = { reason: 1, requiredScope: 1 };
    if (grant.expiresAt === undefined) unset.expiresAt = 1;
    else set.expiresAt = new Date(grant.expiresAt);
    await this.model.updateOne({ toolsetId, subject }, { $set: set, $unset: unset }, { upsert: true }).exec();
  }

  /** The tokens are of no more use; the registered client and metadata stay for the next authorization. */
  async lose(toolsetId: string, reason: string, requiredScope?: string, subject = ''): Promise<void> {
    const previous = await this.previous(toolsetId, subject).catch(() => undefined);
    const kept = previous ? { ...previous, tokens: undefined, expiresAt: undefined } : undefined;
    const set: Partial<OAuthGrantDocument> = { state: 'needs_authorization', reason: reason.slice(0, 500), updatedAt: new Date() };
    if (kept) set.sealed = this.box.seal(JSON.stringify(kept));
    if (requiredScope !== undefined) set.requiredScope = requiredScope;
    await this.model.updateOne({ toolsetId, subject }, { $set: set, $unset: { expiresAt: 1 } }, { upsert: true }).exec();
  }

  /**
   * The state answers show. A grant obtained for another origin than the toolset's URL now has
   * (the URL was changed) counts as none: `needs_authorization`.
   */
  async status(toolsetId: string, serverUrl: string, subject = ''): Promise<OAuthStatus> {
    const doc = await this.model.findOne({ toolsetId, subject }).lean<OAuthGrantDocument>().exec();
    if (!doc) return { state: 'needs_authorization' };
    if (doc.state === 'authorized' && doc.origin !== new URL(serverUrl).origin)
      return { state: 'needs_authorization', reason: 'the toolset URL moved to another origin since it was authorized' };
    return {
      state: doc.state,
      ...(doc.state === 'authorized' && doc.expiresAt ? { expiresAt: doc.expiresAt } : {}),
      ...(doc.reason ? { reason: doc.reason } : {}),
      ...(doc.requiredScope ? { requiredScope: doc.requiredScope } : {}),
    };
  }

  async deleteFor(toolsetId: string): Promise<void> {
    await this.model.deleteMany({ toolsetId }).exec();
  }
}
