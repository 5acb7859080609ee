import { Injectable, Logger } from '@nestjs/common';
import { ToolsetRepository, type ToolsetRecord } from '#workflow';
import type { CreateToolsetBody } from './dto/toolset-requests.js';
import { maskHeaders, toolView, type ToolsetPreviewView } from './dto/toolset-views.js';
import { defaultToolsetName, ToolsetListing } from './toolset-listing.js';

/** POST /toolsets: list the server's tools, then store the toolset with its snapshot. */
@Injectable()
export class CreateToolset {
  private readonly logger = new Logger(CreateToolset.name);

  constructor(
    private readonly listing: ToolsetListing,
    private readonly toolsets: ToolsetRepository,
  ) {}

  /** `actor`: id of the API key asking (`createdBy`). */
  async execute(body: CreateToolsetBody, signal?: AbortSignal, actor?: string): Promise<ToolsetRecord> {
    const listing = await this.listing.list(body, signal);
    const toolset = await this.toolsets.create({
      name: body.name ?? defaultToolsetName(body.url, listing),
      url: body.url,
      headers: body.headers,
      transport: body.transport,
      timeoutMs: body.timeoutMs,
      listing,
      createdBy: actor,
    });
    this.logger.log({ toolsetId: toolset.id, url: toolset.url, transport: toolset.resolvedTransport, tools: toolset.toolCount }, 'toolset created');
    return toolset;
  }
}

/** POST /toolsets/preview: the same listing, nothing stored. */
@Injectable()
export class PreviewToolset {
  constructor(private readonly listing: ToolsetListing) {}

  async execute(body: CreateToolsetBody, signal?: AbortSignal): Promise<ToolsetPreviewView> {
    const listing = await this.listing.list(body, signal);
    return {
      name: body.name ?? defaultToolsetName(body.url, listing),
      url: body.url,
      headers: maskHeaders(Object.keys(body.headers)),
      transport: listing.transport,
      requestedTransport: body.transport,
      timeoutMs: body.timeoutMs ?? null,
      serverInfo: listing.serverInfo,
      toolCount: listing.tools.length,
      tools: listing.tools.map(toolView),
    };
  }
}
