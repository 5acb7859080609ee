import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Types, type Model } from 'mongoose';
import { findPage, type Page, type PageRequest } from './paging.js';
import type { WorkflowDefinition } from '../engine/types.js';
import type { SealDefinition, SealedConfigSecret } from '../secrets/config-secrets.js';
import { fromJsonText, toJsonText } from './json-field.js';
import { isDuplicateKeyError } from './mongo-errors.js';
import { WORKFLOW_MODEL, WORKFLOW_VERSION_MODEL, type WorkflowDoc, type WorkflowVersionDoc } from './workflow.schema.js';

export interface StoredWorkflowVersion {
  workflowId: string;
  version: number;
  /** Secret config values show as `"***"` in it (the node types' `secretConfig`). */
  definition: WorkflowDefinition;
  /** Those values, sealed: opened only by a run's host (`openConfigSecrets`). */
  secrets: SealedConfigSecret[];
  createdBy: string | null;
  createdAt: Date;
}

/** A workflow's summary (what lists show, from its latest version), as the repository hands it out. */
export interface WorkflowRecord {
  id: string;
  name: string;
  description?: string;
  latestVersion: number;
  /** Toolsets and providers the latest version uses (deletes of those answer 409 while listed). */
  toolsetIds: string[];
  providerIds: string[];
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A version as a list of versions shows it (its definition left unread). */
export interface WorkflowVersionSummary {
  version: number;
  createdBy: string | null;
  createdAt: Date;
}

export interface StoredWorkflow {
  workflow: WorkflowRecord;
  version: StoredWorkflowVersion;
}

function recordOf(doc: WorkflowDoc): WorkflowRecord {
  return {
    id: String(doc._id),
    name: doc.name,
    ...(doc.description !== undefined && doc.description !== null && { description: doc.description }),
    latestVersion: doc.latestVersion,
    toolsetIds: doc.toolsetIds ?? [],
    providerIds: doc.providerIds ?? [],
    createdBy: doc.createdBy ?? null,
    updatedBy: doc.updatedBy ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

/** Concurrent PUTs racing for the same version number retry this often before giving up. */
const VERSION_RACE_ATTEMPTS = 5;
/** Versions kept in memory per process; they are immutable, so a cached one is never stale. */
const VERSION_CACHE_SIZE = 500;

function toVersion(doc: WorkflowVersionDoc): StoredWorkflowVersion {
  return {
    workflowId: String(doc.workflowId),
    version: doc.version,
    definition: fromJsonText<WorkflowDefinition>(doc.definition, { name: '', nodes: [], edges: [] }),
    secrets: (doc.secrets ?? []).map(({ nodeId, path, origin, sealed }) => ({ nodeId, path, ...(origin ? { origin } : {}), sealed })),
    createdBy: doc.createdBy ?? null,
    createdAt: doc.createdAt,
  };
}

/** The version document's `secrets` field: left out when there are none. */
function storedSecrets(secrets: SealedConfigSecret[]): { secrets?: SealedConfigSecret[] } {
  return secrets.length > 0 ? { secrets } : {};
}

/** What the latest version uses, denormalised onto the `workflows` summary so deletes can refuse (409). */
export interface WorkflowReferences {
  toolsetIds: string[];
  providerIds: string[];
}

function summaryOf(definition: WorkflowDefinition, { toolsetIds, providerIds }: WorkflowReferences) {
  return { name: definition.name, description: definition.description, toolsetIds, providerIds };
}

/**
 * Workflows and their immutable versions. Without transactions, the version insert (unique on
 * `(workflowId, version)`) is the commit point; the `workflows` summary follows it with an update
 * that only moves forward, and readers take the latest version from `workflow_versions`.
 * A definition reaches the store only through a SealDefinition (`sealConfigSecrets` over the node
 * types' `secretConfig`): it is stored with `"***"` in place of its secret config values, which are
 * kept sealed beside it (see secrets/config-secrets.ts).
 */
@Injectable()
export class WorkflowRepository {
  private readonly versionCache = new Map<string, StoredWorkflowVersion>();

  constructor(
    @InjectModel(WORKFLOW_MODEL) private readonly workflows: Model<WorkflowDoc>,
    @InjectModel(WORKFLOW_VERSION_MODEL) private readonly versions: Model<WorkflowVersionDoc>,
  ) {}

  /**
   * A live (not deleted) workflow whose latest version references the toolset or provider, from
   * the ids denormalised on each version. Workflows saved before `providerIds` existed lack that
   * field, so they match nothing for providers: missing is treated as empty.
   */
  async findLiveReferencing(
    reference: { toolsetId: string } | { providerId: string },
  ): Promise<{ workflowId: string; name: string } | undefined> {
    const filter = 'toolsetId' in reference ? { toolsetIds: reference.toolsetId } : { providerIds: reference.providerId };
    const workflow = await this.workflows
      .findOne({ ...filter, deletedAt: null }, { _id: 1, name: 1 })
      .lean<{ _id: unknown; name: string }>()
      .exec();
    return workflow ? { workflowId: String(workflow._id), name: workflow.name } : undefined;
  }

  /** Live (not deleted) workflows, newest first. */
  pageLive(page: PageRequest, only: readonly string[] | null = null): Promise<Page<WorkflowRecord>> {
    const filter = only ? { deletedAt: null, _id: { $in: [...only] } } : { deletedAt: null };
    return findPage(this.workflows, filter, page, recordOf);
  }

  /** A workflow's versions, newest first. */
  pageVersions(workflowId: string, page: PageRequest): Promise<Page<WorkflowVersionSummary>> {
    return findPage(this.versions, { workflowId }, page, (doc) => ({
      version: doc.version,
      createdBy: doc.createdBy ?? null,
      createdAt: doc.createdAt,
    }));
  }

  /**
   * `actor`: id of the API key saving it (`createdBy` / `updatedBy`). The sealing throws
   * ConfigSecretsRefused when a secret config value cannot be stored (`"***"` with nothing to keep).
   */
  async create(seal: SealDefinition, references: WorkflowReferences, actor: string | null = null): Promise<StoredWorkflow> {
    const { definition, secrets } = seal([]);
    const workflowId = new Types.ObjectId();
    const version = await this.versions.create({
      workflowId,
      version: 1,
      definition: toJsonText(definition),
      ...storedSecrets(secrets),
      createdBy: actor,
    });
    const workflow = await this.workflows.create({
      _id: workflowId,
      latestVersion: 1,
      ...summaryOf(definition, references),
      createdBy: actor,
      updatedBy: actor,
    });
    return { workflow: recordOf(workflow.toObject()), version: toVersion(version.toObject()) };
  }

  /**
   * The next version of a live workflow; undefined when it does not exist or is deleted. Sealed with
   * the secrets of the version it follows: a value given as `"***"` keeps one of those (on the same
   * origin only, else ConfigSecretsRefused).
   */
  async addVersion(
    id: string,
    seal: SealDefinition,
    references: WorkflowReferences,
    actor: string | null = null,
  ): Promise<StoredWorkflow | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      const workflow = await this.findLiveDoc(id);
      if (!workflow) return undefined;
      const latest = await this.latestVersion(workflow._id);
      const { definition, secrets } = seal(latest.secrets);
      try {
        const created = await this.versions.create({
          workflowId: workflow._id,
          version: latest.version + 1,
          definition: toJsonText(definition),
          ...storedSecrets(secrets),
          createdBy: actor,
        });
        const version = toVersion(created.toObject());
        const updated = await this.workflows
          .findOneAndUpdate(
            { _id: workflow._id, latestVersion: { $lt: version.version } },
            { $set: { latestVersion: version.version, ...summaryOf(definition, references), updatedBy: actor } },
            { returnDocument: 'after' },
          )
          .lean();
        return { workflow: recordOf(updated ?? (await this.findLiveDoc(id)) ?? workflow), version };
      } catch (error) {
        if (!isDuplicateKeyError(error) || attempt >= VERSION_RACE_ATTEMPTS) throw error;
      }
    }
  }

  async findLive(id: string): Promise<WorkflowRecord | undefined> {
    const doc = await this.findLiveDoc(id);
    return doc && recordOf(doc);
  }

  /** The latest version of a live workflow. */
  async findLatest(id: string): Promise<StoredWorkflow | undefined> {
    const workflow = await this.findLiveDoc(id);
    if (!workflow) return undefined;
    const doc = await this.versions.findOne({ workflowId: workflow._id }).sort({ version: -1 }).lean();
    return doc ? { workflow: recordOf(workflow), version: toVersion(doc) } : undefined;
  }

  /** A version, whether or not the workflow was deleted since (runs pin versions). Cached: every run reads one. */
  async findVersion(id: string, version: number): Promise<StoredWorkflowVersion | undefined> {
    if (!isValidObjectId(id)) return undefined;
    const key = `${id}:${version}`;
    const cached = this.versionCache.get(key);
    if (cached) {
      // Re-inserted to mark it recently used: the map's order is the eviction order.
      this.versionCache.delete(key);
      this.versionCache.set(key, cached);
      return cached;
    }
    const doc = await this.versions.findOne({ workflowId: id, version }).lean();
    if (!doc) return undefined;
    const stored = toVersion(doc);
    if (this.versionCache.size >= VERSION_CACHE_SIZE) this.versionCache.delete(this.versionCache.keys().next().value as string);
    this.versionCache.set(key, stored);
    return stored;
  }

  /** Every version of a workflow, oldest first (the references a workflow-limited key may keep: see apps/api reference-grants). */
  async findVersions(id: string): Promise<StoredWorkflowVersion[]> {
    if (!isValidObjectId(id)) return [];
    const docs = await this.versions.find({ workflowId: id }).sort({ version: 1 }).lean();
    return docs.map(toVersion);
  }

  async softDelete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    const result = await this.workflows.updateOne({ _id: id, deletedAt: null }, { $set: { deletedAt: new Date() } });
    return result.modifiedCount === 1;
  }

  private async findLiveDoc(id: string): Promise<WorkflowDoc | undefined> {
    if (!isValidObjectId(id)) return undefined;
    // By `_id` alone: the one filter FerretDB v1 pushes down to SQLite instead of scanning.
    const doc = await this.workflows.findById(id).lean();
    return doc && !doc.deletedAt ? doc : undefined;
  }

  private async latestVersion(workflowId: Types.ObjectId): Promise<{ version: number; secrets: SealedConfigSecret[] }> {
    const doc = await this.versions.findOne({ workflowId }).sort({ version: -1 }).select({ version: 1, secrets: 1 }).lean();
    return { version: doc?.version ?? 0, secrets: doc?.secrets ?? [] };
  }
}
