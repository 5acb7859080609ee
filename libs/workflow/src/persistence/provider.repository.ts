import { Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import { findPage, type Page, type PageRequest } from './paging.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { SECRET_BOX } from '../secrets/secrets.module.js';
import { PROVIDER_MODEL, type ProviderDocument } from './provider.schema.js';

/** A provider without its key: what may leave the process. */
export interface ProviderSummary {
  id: string;
  name: string;
  baseURL: string;
  models: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProvider {
  name: string;
  baseURL: string;
  apiKey: string;
  models?: string[];
}

export type ProviderChanges = Partial<NewProvider>;

export function providerSummaryOf(doc: ProviderDocument): ProviderSummary {
  return {
    id: String(doc._id),
    name: doc.name,
    baseURL: doc.baseURL,
    models: [...(doc.models ?? [])],
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Where a provider's requests go, with its key decrypted (never logged, never returned by the API). */
export interface ProviderEndpoint {
  baseURL: string;
  apiKey: string;
}

/**
 * Reads and writes providers; the only place API keys are sealed and opened. `resolve` fits the LLM
 * client's ProviderResolver port (llm/ owns the port and wires this repository to it: persistence
 * stays below llm/ and does not name it).
 */
@Injectable()
export class ProviderRepository {
  constructor(
    @InjectModel(PROVIDER_MODEL) private readonly model: Model<ProviderDocument>,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async create(input: NewProvider): Promise<ProviderSummary> {
    const created = await this.model.create({
      name: input.name,
      baseURL: input.baseURL,
      apiKey: this.box.seal(input.apiKey),
      models: input.models ?? [],
    });
    return providerSummaryOf(created.toObject());
  }

  /** Providers newest first, without keys. */
  page(page: PageRequest): Promise<Page<ProviderSummary>> {
    return findPage(this.model, {}, page, providerSummaryOf);
  }

  async findById(id: string): Promise<ProviderSummary | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<ProviderDocument>().exec() : null;
    return doc ? providerSummaryOf(doc) : undefined;
  }

  async update(id: string, changes: ProviderChanges): Promise<ProviderSummary | undefined> {
    const set: Record<string, unknown> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.baseURL !== undefined) set.baseURL = changes.baseURL;
    if (changes.models !== undefined) set.models = changes.models;
    if (changes.apiKey !== undefined) set.apiKey = this.box.seal(changes.apiKey);
    const doc = isValidObjectId(id)
      ? await this.model.findOneAndUpdate({ _id: id }, { $set: set }, { returnDocument: 'after' }).lean<ProviderDocument>().exec()
      : null;
    return doc ? providerSummaryOf(doc) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount === 1;
  }

  async resolve(providerId: string): Promise<ProviderEndpoint | undefined> {
    const doc = isValidObjectId(providerId)
      ? await this.model.findById(providerId, { baseURL: 1, apiKey: 1 }).lean<ProviderDocument>().exec()
      : null;
    return doc ? { baseURL: doc.baseURL, apiKey: this.box.open(doc.apiKey) } : undefined;
  }
}
