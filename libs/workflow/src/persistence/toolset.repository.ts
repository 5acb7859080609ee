import { Inject, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import type { ServerInfo, ToolSnapshot } from '#mcp';
import { SECRET_BOX } from '../secrets/secrets.module.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { TOOLSET_MODEL, type ResolvedHttpTransport, type ToolsetDocument, type TransportMode } from './toolset.schema.js';

/** What a listing of the server produced (libs/mcp `listToolset`). */
export interface ToolsetListingInput {
  serverInfo: ServerInfo;
  transport: ResolvedHttpTransport;
  tools: ToolSnapshot[];
}

/** A toolset without its tools and without any header value. */
export interface ToolsetSummary {
  id: string;
  name: string;
  url: string;
  headerNames: string[];
  transport: TransportMode;
  resolvedTransport: ResolvedHttpTransport;
  timeoutMs?: number;
  serverInfo: ServerInfo;
  toolCount: number;
  toolsRefreshedAt: Date;
  revision: number;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolsetRecord extends ToolsetSummary {
  tools: ToolSnapshot[];
}

/** How to reach the server, header values in clear: for connecting only, never for responses or logs. */
export interface ToolsetConnection {
  url: string;
  headers: Record<string, string>;
  transport: TransportMode;
  resolvedTransport: ResolvedHttpTransport;
  timeoutMs?: number;
  revision: number;
}

export interface NewToolset {
  name: string;
  url: string;
  headers: Record<string, string>;
  transport: TransportMode;
  timeoutMs?: number;
  listing: ToolsetListingInput;
  /** Id of the API key creating it. */
  createdBy?: string;
}

export interface ToolsetChanges {
  name?: string;
  url?: string;
  headers?: Record<string, string>;
  transport?: TransportMode;
  /** null removes the toolset's own timeout (the configured default applies). */
  timeoutMs?: number | null;
  listing?: ToolsetListingInput;
  /** Id of the API key making the change. */
  updatedBy?: string;
}

export type ToolsetUpdateOutcome = { ok: true; toolset: ToolsetRecord } | { ok: false; reason: 'missing' | 'conflict' };

export function toolsetSummaryOf(doc: ToolsetDocument): ToolsetSummary {
  const summary: ToolsetSummary = {
    id: String(doc._id),
    name: doc.name,
    url: doc.url,
    headerNames: doc.headers.map((header) => header.name),
    transport: doc.transport,
    resolvedTransport: doc.resolvedTransport,
    serverInfo: { name: doc.serverInfo.name, version: doc.serverInfo.version, protocolVersion: doc.serverInfo.protocolVersion },
    toolCount: doc.toolCount,
    toolsRefreshedAt: doc.toolsRefreshedAt,
    revision: doc.revision,
    createdBy: doc.createdBy ?? null,
    updatedBy: doc.updatedBy ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
  if (typeof doc.timeoutMs === 'number') summary.timeoutMs = doc.timeoutMs;
  return summary;
}

export function toolsOf(doc: Pick<ToolsetDocument, 'tools'>): ToolSnapshot[] {
  return doc.tools.map((tool) => JSON.parse(tool.snapshot) as ToolSnapshot);
}

/** Reads and writes toolsets; the only place header values are sealed and opened. */
@Injectable()
export class ToolsetRepository {
  constructor(
    @InjectModel(TOOLSET_MODEL) readonly model: Model<ToolsetDocument>,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async create(input: NewToolset): Promise<ToolsetRecord> {
    const created = await this.model.create({
      name: input.name,
      url: input.url,
      headers: this.seal(input.headers),
      transport: input.transport,
      timeoutMs: input.timeoutMs,
      ...this.listingFields(input.listing),
      revision: 1,
      createdBy: input.createdBy ?? null,
      updatedBy: input.createdBy ?? null,
    });
    return this.recordOf(created.toObject());
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
      ? await this.model.findById(id, { url: 1, headers: 1, transport: 1, resolvedTransport: 1, timeoutMs: 1, revision: 1 }).lean<ToolsetDocument>().exec()
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
    if (changes.timeoutMs === null) unset.timeoutMs = 1;
    else if (changes.timeoutMs !== undefined) set.timeoutMs = changes.timeoutMs;
    if (changes.listing) Object.assign(set, this.listingFields(changes.listing));
    if (changes.updatedBy !== undefined) set.updatedBy = changes.updatedBy;
    const update = { $set: set, $inc: { revision: 1 }, ...(Object.keys(unset).length ? { $unset: unset } : {}) };
    const doc = isValidObjectId(id)
      ? await this.model.findOneAndUpdate({ _id: id, revision }, update, { returnDocument: 'after' }).lean<ToolsetDocument>().exec()
      : null;
    if (doc) return { ok: true, toolset: this.recordOf(doc) };
    return { ok: false, reason: (await this.exists(id)) ? 'conflict' : 'missing' };
  }

  async delete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.model.deleteOne({ _id: id }).exec();
    return result.deletedCount === 1;
  }

  private seal(headers: Record<string, string>) {
    return Object.entries(headers).map(([name, value]) => ({ name, value: this.box.seal(value) }));
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
    const connection: ToolsetConnection = {
      url: doc.url,
      headers: Object.fromEntries(doc.headers.map((header) => [header.name, this.box.open(header.value)])),
      transport: doc.transport,
      resolvedTransport: doc.resolvedTransport,
      revision: doc.revision,
    };
    if (typeof doc.timeoutMs === 'number') connection.timeoutMs = doc.timeoutMs;
    return connection;
  }

  private recordOf(doc: ToolsetDocument): ToolsetRecord {
    return { ...toolsetSummaryOf(doc), tools: toolsOf(doc) };
  }
}
