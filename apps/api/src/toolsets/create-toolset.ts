import { Injectable, Logger } from '@nestjs/common';
import { OAuthGrantRepository, ToolsetRepository, type ConnectionSpec, type ToolsetListingInput, type ToolsetRecord } from '#workflow/nest';
import type { OAuthGrant } from '#mcp';
import type { CreateToolsetBody } from './dto/toolset-requests.js';
import { toolView, whereView, type ToolsetPreviewView } from './dto/toolset-views.js';
import { ToolsetRefreshSchedule } from './refresh-schedule.js';
import type { Requester } from './requester.js';
import { defaultToolsetName, ToolsetListing } from './toolset-listing.js';
import { authOfNewToolset } from './toolset-auth-changes.js';
import { ToolsetOAuthListing } from './toolset-oauth-listing.js';

/** The connection a create body describes (a stdio one has no toolset id, hence no directory of its own yet). */
export function specOfBody(body: CreateToolsetBody): ConnectionSpec {
  return body.kind === 'stdio'
    ? { kind: 'stdio', command: body.command, args: body.args, env: body.env, timeoutMs: body.timeoutMs }
    : {
        url: body.url,
        headers: body.headers,
        transport: body.transport,
        timeoutMs: body.timeoutMs,
        ...(body.auth ? { auth: authOfNewToolset(body.auth) } : {}),
      };
}

/** The first listing: an OAuth toolset's goes through its grant (or waits for one), any other's straight. */
async function firstListing(
  spec: ConnectionSpec,
  listing: ToolsetListing,
  oauthListing: ToolsetOAuthListing,
  requester: Requester,
  signal?: AbortSignal,
): Promise<{ listing: ToolsetListingInput; grant?: OAuthGrant }> {
  if (spec.kind !== 'stdio' && spec.auth) return oauthListing.list(spec, spec.auth, requester, signal);
  return { listing: await listing.list(spec, requester, signal) };
}

/** POST /toolsets: list the server's tools, then store the toolset with its snapshot. */
@Injectable()
export class CreateToolset {
  private readonly logger = new Logger(CreateToolset.name);

  constructor(
    private readonly listing: ToolsetListing,
    private readonly toolsets: ToolsetRepository,
    private readonly schedule: ToolsetRefreshSchedule,
    private readonly oauthListing: ToolsetOAuthListing,
    private readonly grants: OAuthGrantRepository,
  ) {}

  /** `requester`: the API key asking (`createdBy`; a stdio server needs `admin`). */
  async execute(body: CreateToolsetBody, requester: Requester, signal?: AbortSignal): Promise<ToolsetRecord> {
    const spec = specOfBody(body);
    this.schedule.check(body.refreshIntervalMs);
    const { listing, grant } = await firstListing(spec, this.listing, this.oauthListing, requester, signal);
    const name = body.name ?? defaultToolsetName(spec, listing);
    const toolset = await this.toolsets.create(
      body.kind === 'stdio'
        ? {
            kind: 'stdio',
            name,
            command: body.command,
            args: body.args,
            env: body.env,
            process: body.process,
            timeoutMs: body.timeoutMs,
            refreshIntervalMs: body.refreshIntervalMs,
            listing,
            createdBy: requester.keyId,
          }
        : {
            name,
            url: body.url,
            headers: body.headers,
            transport: body.transport,
            ...(body.auth ? { auth: authOfNewToolset(body.auth) } : {}),
            timeoutMs: body.timeoutMs,
            refreshIntervalMs: body.refreshIntervalMs,
            listing,
            createdBy: requester.keyId,
          },
    );
    if (grant) await this.grants.save(toolset.id, grant);
    if (toolset.refreshIntervalMs !== undefined) await this.schedule.apply(toolset.id, toolset.refreshIntervalMs);
    const where = toolset.kind === 'stdio' ? { command: toolset.command } : { url: toolset.url };
    this.logger.log({ toolsetId: toolset.id, ...where, transport: toolset.resolvedTransport, tools: toolset.toolCount }, 'toolset created');
    return toolset;
  }
}

/** POST /toolsets/preview: the same listing, nothing stored. */
@Injectable()
export class PreviewToolset {
  constructor(
    private readonly listing: ToolsetListing,
    private readonly oauthListing: ToolsetOAuthListing,
  ) {}

  async execute(body: CreateToolsetBody, requester: Requester, signal?: AbortSignal): Promise<ToolsetPreviewView> {
    const spec = specOfBody(body);
    const { listing } = await firstListing(spec, this.listing, this.oauthListing, requester, signal);
    const where =
      body.kind === 'stdio'
        ? whereView({
            kind: 'stdio',
            headerNames: [],
            command: body.command,
            args: body.args,
            envNames: Object.keys(body.env),
            process: body.process,
          })
        : whereView({ kind: 'http', url: body.url, headerNames: Object.keys(body.headers) });
    return {
      kind: body.kind,
      name: body.name ?? defaultToolsetName(spec, listing),
      ...where,
      transport: listing.transport,
      requestedTransport: body.kind === 'stdio' ? 'stdio' : body.transport,
      protocolVersion: listing.serverInfo.protocolVersion,
      timeoutMs: body.timeoutMs ?? null,
      serverInfo: listing.serverInfo,
      toolCount: listing.tools.length,
      tools: listing.tools.map(toolView),
    };
  }
}
