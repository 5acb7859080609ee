import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import { MCP_SERVER_MODEL, type McpServerDoc, type PublishedToolDoc } from './mcp-server.schema.js';
import { findPage, type Page, type PageRequest } from './paging.js';

export interface McpServerRecord {
  id: string;
  name: string;
  description: string | null;
  tools: PublishedToolDoc[];
  createdAt: Date;
  updatedAt: Date;
}

export interface NewMcpServer {
  name: string;
  description?: string | null;
  tools: PublishedToolDoc[];
}

export type McpServerChanges = Partial<NewMcpServer>;

function recordOf(doc: McpServerDoc): McpServerRecord {
  return {
    id: String(doc._id),
    name: doc.name,
    description: doc.description ?? null,
    tools: (doc.tools ?? []).map(({ workflowId, name, description }) => ({
      workflowId,
      name,
      ...(description !== undefined && { description }),
    })),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

function fieldsOf(input: McpServerChanges): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.description) set.description = input.description;
  if (input.tools !== undefined) {
    set.tools = input.tools;
    set.workflowIds = [...new Set(input.tools.map((tool) => tool.workflowId))];
  }
  return set;
}

/** Published MCP servers (`mcp_servers`). */
@Injectable()
export class McpServerRepository {
  constructor(@InjectModel(MCP_SERVER_MODEL) private readonly model: Model<McpServerDoc>) {}

  async create(input: NewMcpServer): Promise<McpServerRecord> {
    const created = await this.model.create(fieldsOf(input));
    return recordOf(created.toObject());
  }

  async findById(id: string): Promise<McpServerRecord | undefined> {
    const doc = isValidObjectId(id) ? await this.model.findById(id).lean<McpServerDoc>().exec() : null;
    return doc ? recordOf(doc) : undefined;
  }

  /** Newest first. */
  page(page: PageRequest): Promise<Page<McpServerRecord>> {
    return findPage(this.model, {}, page, recordOf);
  }

  async update(id: string, changes: McpServerChanges): Promise<McpServerRecord | undefined> {
    if (!isValidObjectId(id)) return undefined;
    // `description: null` removes the override (the workflow's own description shows again).
    const update = changes.description === null ? { $set: fieldsOf(changes), $unset: { description: 1 } } : { $set: fieldsOf(changes) };
    const doc = await this.model.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after' }).lean<McpServerDoc>().exec();
    return doc ? recordOf(doc) : undefined;
  }

  async delete(id: string): Promise<boolean> {
    if (!isValidObjectId(id)) return false;
    return (await this.model.deleteOne({ _id: id }).exec()).deletedCount === 1;
  }

  /** Servers publishing the workflow (ids and names), for the 409 on its delete and change notifications. */
  async findPublishing(workflowId: string): Promise<Array<{ id: string; name: string }>> {
    const docs = await this.model
      .find({ workflowIds: workflowId }, { _id: 1, name: 1 })
      .lean<Array<{ _id: unknown; name: string }>>()
      .exec();
    return docs.map((doc) => ({ id: String(doc._id), name: doc.name }));
  }
}
