import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import type { ToolSnapshot } from '#mcp';
import type { ToolCatalog, ToolDescriptor } from '../engine/types.js';
import { toolsOf } from '../persistence/toolset-records.js';
import { TOOLSET_MODEL, type ToolsetDocument } from '../persistence/toolset.schema.js';

/** A snapshot as the engine sees it: the same fields (the title aside), plus the toolset it belongs to. */
export function toolDescriptorOf(toolsetId: string, tool: ToolSnapshot): ToolDescriptor {
  const { title: _title, ...described } = tool;
  return { toolsetId, ...described };
}

/** The engine's ToolCatalog over stored toolset snapshots (as of their last create/refresh). */
@Injectable()
export class ToolsetCatalog implements ToolCatalog {
  constructor(@InjectModel(TOOLSET_MODEL) private readonly model: Model<ToolsetDocument>) {}

  async listTools(toolsetId: string): Promise<ToolDescriptor[] | undefined> {
    if (!isValidObjectId(toolsetId)) return undefined;
    const doc = await this.model.findById(toolsetId, { tools: 1 }).lean<Pick<ToolsetDocument, 'tools'>>().exec();
    return doc ? toolsOf(doc).map((tool) => toolDescriptorOf(toolsetId, tool)) : undefined;
  }

  async getTool(toolsetId: string, tool: string): Promise<ToolDescriptor | undefined> {
    if (!isValidObjectId(toolsetId)) return undefined;
    const doc = await this.model.findById(toolsetId, { tools: 1 }).lean<Pick<ToolsetDocument, 'tools'>>().exec();
    const stored = doc?.tools.find((candidate) => candidate.name === tool);
    return stored ? toolDescriptorOf(toolsetId, JSON.parse(stored.snapshot) as ToolSnapshot) : undefined;
  }
}
