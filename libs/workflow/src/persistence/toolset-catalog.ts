import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, type Model } from 'mongoose';
import type { ToolSnapshot } from '#mcp';
import type { ToolCatalog, ToolDescriptor } from '../engine/types.js';
import { toolsOf } from './toolset.repository.js';
import { TOOLSET_MODEL, type ToolsetDocument } from './toolset.schema.js';

export function toolDescriptorOf(toolsetId: string, tool: ToolSnapshot): ToolDescriptor {
  const descriptor: ToolDescriptor = {
    toolsetId,
    name: tool.name,
    inputSchema: tool.inputSchema,
    inputs: tool.inputs,
    usable: tool.usable,
  };
  if (tool.description !== undefined) descriptor.description = tool.description;
  if (tool.outputSchema !== undefined) descriptor.outputSchema = tool.outputSchema;
  if (tool.outputs !== undefined) descriptor.outputs = tool.outputs;
  if (tool.unusableReason !== undefined) descriptor.unusableReason = tool.unusableReason;
  if (tool.annotations !== undefined) descriptor.annotations = tool.annotations;
  return descriptor;
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
