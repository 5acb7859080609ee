import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import { isDuplicateKeyError } from './mongo-errors.js';
import { findPage, type Page, type PageRequest } from './paging.js';
import { API_KEY_MODEL, type ApiKeyDocument } from './api-key.schema.js';

/** An API key as it may leave the store: everything but the hash. */
export type ApiKeyRecord = Omit<ApiKeyDocument, '_id' | 'hash' | 'updatedAt'> & { id: string };

export type NewApiKey = Pick<
  ApiKeyDocument,
  'name' | 'hash' | 'prefix' | 'scopes' | 'workflows' | 'mcpServers' | 'expiresAt' | 'createdBy'
>;

/** A key found by its hash, with the stored hash for the caller's constant-time comparison. */
export type StoredApiKey = ApiKeyRecord & { hash: string };

function recordOf(doc: ApiKeyDocument): ApiKeyRecord {
  return {
    id: String(doc._id),
    name: doc.name,
    prefix: doc.prefix,
    scopes: [...doc.scopes],
    workflows: doc.workflows ? [...doc.workflows] : null,
    mcpServers: doc.mcpServers ? [...doc.mcpServers] : null,
    expiresAt: doc.expiresAt ?? null,
    lastUsedAt: doc.lastUsedAt ?? null,
    revokedAt: doc.revokedAt ?? null,
    createdBy: doc.createdBy ?? null,
    createdAt: doc.createdAt,
  };
}

@Injectable()
export class ApiKeyRepository {
  constructor(@InjectModel(API_KEY_MODEL) private readonly model: Model<ApiKeyDocument>) {}

  async create(key: NewApiKey): Promise<ApiKeyRecord> {
    const created = await this.model.create(key);
    return recordOf(created.toObject());
  }

  /** Inserts the key unless one with the same hash exists (a seeded key, by every API process at boot). */
  async createIfAbsent(key: NewApiKey): Promise<ApiKeyRecord | undefined> {
    try {
      return await this.create(key);
    } catch (error) {
      if (isDuplicateKeyError(error)) return undefined;
      throw error;
    }
  }

  async findByHash(hash: string): Promise<StoredApiKey | undefined> {
    const doc = await this.model.findOne({ hash }).lean<ApiKeyDocument>().exec();
    return doc ? { ...recordOf(doc), hash: doc.hash } : undefined;
  }

  async findById(id: string): Promise<ApiKeyRecord | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<ApiKeyDocument>().exec() : null;
    return doc ? recordOf(doc) : undefined;
  }

  /** Newest first. */
  page(page: PageRequest): Promise<Page<ApiKeyRecord>> {
    return findPage(this.model, {}, page, recordOf);
  }

  /** Sets `revokedAt` once (a second revoke keeps the first time). */
  async revoke(id: string, at: Date): Promise<ApiKeyRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const doc = await this.model.findById(id).lean<ApiKeyDocument>().exec();
    if (!doc) return undefined;
    if (doc.revokedAt) return recordOf(doc);
    const updated = await this.model
      .findOneAndUpdate({ _id: id }, { $set: { revokedAt: at } }, { returnDocument: 'after' })
      .lean<ApiKeyDocument>()
      .exec();
    return updated ? recordOf(updated) : undefined;
  }

  /** Of `ids`, those whose key exists, is not revoked and has not expired at `now`. */
  async usableIds(ids: readonly string[], now: Date): Promise<string[]> {
    const valid = ids.filter((id) => isValidObjectId(id));
    if (valid.length === 0) return [];
    const docs = await this.model
      .find({ _id: { $in: valid }, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] }, { _id: 1 })
      .lean<Pick<ApiKeyDocument, '_id'>[]>()
      .exec();
    return docs.map((doc) => String(doc._id));
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.model.updateOne({ _id: id }, { $set: { lastUsedAt: at } }, { timestamps: false }).exec();
  }
}
