import type { HttpTransport } from '#mcp';
import { Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import { findPage, type Page, type PageRequest } from './paging.js';
import { SECRET_BOX } from '../secrets/secrets.module.js';
import type { SecretBox } from '../secrets/secret-box.js';
import {
  toolsetSummaryOf,
  toolsOf,
  type NewToolset,
  type ToolsetChanges,
  type ToolsetConnection,
  type ToolsetListingInput,
  type ToolsetRecord,
  type ToolsetSummary,
  type ToolsetUpdateOutcome,
  type ToolsetAuthSettings,
} from './toolset-records.js';
import {
  TOOLSET_MODEL,
  type StoredHealth,
  type StoredHeader,
  type StoredToolsetAuth,
  type ToolsetDocument,
  type TransportMode,
} from './toolset.schema.js';

/** Reads and writes toolsets; the only place header values are sealed and opened. */
@Injectable()
export class ToolsetRepository {
  constructor(
    @InjectModel(TOOLSET_MODEL) private readonly model: Model<ToolsetDocument>,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async create(input: NewToolset): Promise<ToolsetRecord> {
    const where =
      input.kind === 'stdio'
        ? {
            kind: 'stdio' as const,
            command: input.command,
            args: input.args,
            env: this.seal(input.env),
            process: input.process,
            headers: [],
            transport: 'stdio' as const,
          }
        : {
            kind: 'http' as const,
            url: input.url,
            headers: this.seal(input.headers),
            transport: input.transport,
            ...(input.auth ? { auth: this.sealAuth(input.auth) } : {}),
          };
    const created = await this.model.create({
      name: input.name,
      ...where,
      timeoutMs: input.timeoutMs,
      refreshIntervalMs: input.refreshIntervalMs,
      ...this.listingFields(input.listing),
      revision: 1,
      createdBy: input.createdBy ?? null,
      updatedBy: input.createdBy ?? null,
    });
    return this.recordOf(created.toObject());
  }

  /** Toolsets newest first, as summaries (no headers, no tools). */
  page(page: PageRequest): Promise<Page<ToolsetSummary>> {
    return findPage(this.model, {}, page, toolsetSummaryOf);
  }

  async findById(id: string): Promise<ToolsetRecord | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<ToolsetDocument>().exec() : null;
    return doc ? this.recordOf(doc) : undefined;
  }

  async exists(id: string): Promise<boolean> {
    return isValidObjectId(id) && (await this.model.exists({ _id: id }).exec()) !== null;
  }

  /** Header values opened: for connecting only. */
  async connectionOf(id: string): Promise<ToolsetConnection | undefined> {
    const doc = isValidObjectId(id)
      ? await this.model
          .findById(id, {
            kind: 1,
            url: 1,
            headers: 1,
            auth: 1,
            command: 1,
            args: 1,
            env: 1,
            process: 1,
            transport: 1,
            resolvedTransport: 1,
            timeoutMs: 1,
            revision: 1,
            // The revision the server spoke at the last listing: without it every run probed the stateless one first.
            'serverInfo.protocolVersion': 1,
          })
          .lean<ToolsetDocument>()
          .exec()
      : null;
    return doc ? this.connectionFrom(doc) : undefined;
  }

  /** The toolset and its connection from one read (same revision), for a refresh. */
  async findWithConnection(id: string): Promise<{ toolset: ToolsetRecord; connection: ToolsetConnection } | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<ToolsetDocument>().exec() : null;
    return doc ? { toolset: this.recordOf(doc), connection: this.connectionFrom(doc) } : undefined;
  }

  /** Applies the changes only if the toolset is still at `revision` (someone else may have written meanwhile). */
  async update(id: string, revision: number, changes: ToolsetChanges): Promise<ToolsetUpdateOutcome> {
    const set: Record<string, unknown> = {};
    const unset: Record<string, 1> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.url !== undefined) set.url = changes.url;
    if (changes.transport !== undefined) set.transport = changes.transport;
    if (changes.headers !== undefined) set.headers = this.seal(changes.headers);
    if (changes.auth === null) unset.auth = 1;
    else if (changes.auth !== undefined) set.auth = this.sealAuth(changes.auth);
    if (changes.env !== undefined) set.env = this.seal(changes.env);
    if (changes.process !== undefined) set.process = changes.process;
    if (changes.timeoutMs === null) unset.timeoutMs = 1;
    else if (changes.timeoutMs !== undefined) set.timeoutMs = changes.timeoutMs;
    if (changes.refreshIntervalMs === null) unset.refreshIntervalMs = 1;
    else if (changes.refreshIntervalMs !== undefined) set.refreshIntervalMs = changes.refreshIntervalMs;
    if (changes.listing) Object.assign(set, this.listingFields(changes.listing));
    if (changes.updatedBy !== undefined) set.updatedBy = changes.updatedBy;
    const update = { $set: set, $inc: { revision: 1 }, ...(Object.keys(unset).length ? { $unset: unset } : {}) };
    const doc = isValidObjectId(id)
      ? await this.model.findOneAndUpdate({ _id: id, revision }, update, { returnDocument: 'after' }).lean<ToolsetDocument>().exec()
      : null;
    if (doc) return { ok: true, toolset: this.recordOf(doc) };
    return { ok: false, reason: (await this.exists(id)) ? 'conflict' : 'missing' };
  }

  /** Every toolset's id, oldest first (the periodic health check walks them). */
  async allIds(): Promise<string[]> {
    const docs = await this.model.find({}, { _id: 1 }).sort({ _id: 1 }).lean<Pick<ToolsetDocument, '_id'>[]>().exec();
    return docs.map((doc) => String(doc._id));
  }

  /** The toolsets refreshed periodically, with their interval (the workers' schedules follow them). */
  async refreshIntervals(): Promise<Map<string, number>> {
    const docs = await this.model
      .find({ refreshIntervalMs: { $gt: 0 } }, { refreshIntervalMs: 1 })
      .lean<Pick<ToolsetDocument, '_id' | 'refreshIntervalMs'>[]>()
      .exec();
    return new Map(docs.map((doc) => [String(doc._id), doc.refreshIntervalMs ?? 0]));
  }

  /**
   * Stores a health check's outcome. Not a change of the toolset: no revision move (runs' cached
   * snapshots and pending PATCHes stay valid) and no updatedAt.
   */
  async recordHealth(id: string, health: StoredHealth): Promise<void> {
    if (!isValidObjectId(id)) return;
    await this.model.updateOne({ _id: id }, { $set: { health } }, { timestamps: false }).exec();
  }

  async delete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount === 1;
  }

  private seal(values: Record<string, string>): StoredHeader[] {
    return Object.entries(values).map(([name, value]) => ({ name, value: this.box.seal(value) }));
  }

  private open(values: StoredHeader[]): Record<string, string> {
    return Object.fromEntries(values.map((entry) => [entry.name, this.box.open(entry.value)]));
  }

  private sealAuth(auth: ToolsetAuthSettings): StoredToolsetAuth {
    const { clientSecret, privateKey, ...rest } = auth;
    return {
      ...rest,
      ...(clientSecret === undefined ? {} : { clientSecret: this.box.seal(clientSecret) }),
      ...(privateKey === undefined ? {} : { privateKey: this.box.seal(privateKey) }),
    };
  }

  private openAuth(auth: StoredToolsetAuth): ToolsetAuthSettings {
    const { clientSecret, privateKey, type, flow, clientId, tokenEndpointAuthMethod, signingAlgorithm, scopes, perUser } = auth;
    return {
      type,
      flow,
      ...(clientId === undefined ? {} : { clientId }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(perUser === true ? { perUser } : {}),
      ...(clientSecret === undefined ? {} : { clientSecret: this.box.open(clientSecret) }),
      ...(tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod }),
      ...(privateKey === undefined ? {} : { privateKey: this.box.open(privateKey) }),
      ...(signingAlgorithm === undefined ? {} : { signingAlgorithm }),
    };
  }

  private listingFields(listing: ToolsetListingInput) {
    return {
      resolvedTransport: listing.transport,
      serverInfo: listing.serverInfo,
      tools: listing.tools.map((tool) => ({ name: tool.name, usable: tool.usable, snapshot: JSON.stringify(tool) })),
      toolCount: listing.tools.length,
      toolsRefreshedAt: new Date(),
    };
  }

  private connectionFrom(doc: ToolsetDocument): ToolsetConnection {
    const common = { revision: doc.revision };
    const connection: ToolsetConnection =
      doc.kind === 'stdio'
        ? {
            ...common,
            kind: 'stdio',
            id: String(doc._id),
            command: doc.command ?? '',
            args: doc.args ?? [],
            env: this.open(doc.env ?? []),
            process: doc.process ?? 'per-run',
            transport: 'stdio',
            resolvedTransport: 'stdio',
          }
        : {
            ...common,
            kind: 'http',
            id: String(doc._id),
            url: doc.url ?? '',
            headers: this.open(doc.headers),
            ...(doc.auth ? { auth: this.openAuth(doc.auth) } : {}),
            // Only stdio documents hold 'stdio' in these two fields.
            transport: doc.transport as TransportMode,
            resolvedTransport: doc.resolvedTransport as HttpTransport,
          };
    if (typeof doc.timeoutMs === 'number') connection.timeoutMs = doc.timeoutMs;
    const protocolVersion = doc.serverInfo?.protocolVersion;
    if (connection.kind !== 'stdio' && protocolVersion && protocolVersion !== 'unknown') connection.protocolVersion = protocolVersion;
    return connection;
  }

  private recordOf(doc: ToolsetDocument): ToolsetRecord {
    return { ...toolsetSummaryOf(doc), tools: toolsOf(doc) };
  }
}
