import { Injectable } from '@nestjs/common';
import { storedSecretsMayFollow } from '#mcp';
import type { OAuthGrant } from '#mcp';
import {
  OAuthGrantRepository,
  ToolsetRepository,
  type HttpToolsetConnection,
  type ToolsetChanges,
  type ToolsetListingInput,
  type ToolsetRecord,
  type ToolsetUpdateOutcome,
} from '#workflow/nest';
import { ConflictError, InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import { pointer } from '../common/zod-validation.js';
import { MASK, type UpdateToolsetBody } from './dto/toolset-requests.js';
import { ToolsetRefreshSchedule } from './refresh-schedule.js';
import { refuseStdioUnlessAdmin, type Requester } from './requester.js';
import { refuseClientSecretOnNewOrigin, resolveAuth, sameAuth } from './toolset-auth-changes.js';
import { ToolsetOAuthListing } from './toolset-oauth-listing.js';
import { ToolsetListing } from './toolset-listing.js';

/** The stored toolset after a conditional write; 404 when it is gone, 409 when it changed meanwhile. */
export function updatedOrThrow(id: string, outcome: ToolsetUpdateOutcome): ToolsetRecord {
  if (outcome.ok) return outcome.toolset;
  if (outcome.reason === 'missing') throw new NotFoundError('Toolset', id);
  throw new ConflictError('TOOLSET_CHANGED', `Toolset ${id} was changed by another request meanwhile; retry`);
}

/** Header values given as "***" keep the stored value of that header (what GET shows is sendable back). */
function resolveHeaders(given: Record<string, string>, stored: Record<string, string>): Record<string, string> {
  const storedByLowerName = new Map(Object.entries(stored).map(([name, value]) => [name.toLowerCase(), value]));
  const problems = Object.entries(given)
    .filter(([name, value]) => value === MASK && !storedByLowerName.has(name.toLowerCase()))
    .map(([name]) => ({
      path: pointer(['headers', name]),
      code: 'UNKNOWN_HEADER',
      message: `"${MASK}" keeps a stored value, but the toolset has no header "${name}"`,
    }));
  if (problems.length) throw new InvalidRequestError(problems, 'The request body is invalid');
  return Object.fromEntries(
    Object.entries(given).map(([name, value]) => [name, value === MASK ? (storedByLowerName.get(name.toLowerCase()) as string) : value]),
  );
}

/**
 * A URL on another origin takes no stored header value along (they were entered for the old origin):
 * every stored header left out, or given as "***", is refused before anything is sent anywhere.
 */
function refuseSecretsOnNewOrigin(
  storedUrl: string,
  nextUrl: string,
  given: Record<string, string> | undefined,
  stored: Record<string, string>,
): void {
  if (storedSecretsMayFollow(storedUrl, nextUrl)) return;
  const kept = given === undefined ? Object.keys(stored) : Object.keys(given).filter((name) => given[name] === MASK);
  const problems = kept.map((name) => ({
    path: pointer(['headers', name]),
    code: 'SECRET_REQUIRED',
    message: `The URL moves to another origin: give the value of header "${name}" again (stored secrets stay with the origin they were entered for)`,
  }));
  if (problems.length) throw new InvalidRequestError(problems, 'The request body is invalid');
}

function sameHeaders(a: Record<string, string>, b: Record<string, string>): boolean {
  const entries = (record: Record<string, string>) =>
    JSON.stringify(Object.entries(record).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return entries(a) === entries(b);
}

/** Fields of a PATCH that only a toolset reached by URL has. */
const HTTP_ONLY_FIELDS = ['url', 'headers', 'transport', 'auth'] as const;

/**
 * PATCH /toolsets/:id: name and timeout change in place; a changed connection lists the tools again first.
 * Changed OAuth settings drop the stored grant (it was obtained as the old client, with the old scopes);
 * `auth: null` removes OAuth (and the grant): the tools are listed again without it.
 * A stdio toolset changes its name, timeout and process mode only (a new command is a new toolset: create it, then delete this one).
 */
@Injectable()
export class UpdateToolset {
  constructor(
    private readonly listing: ToolsetListing,
    private readonly toolsets: ToolsetRepository,
    private readonly schedule: ToolsetRefreshSchedule,
    private readonly oauthListing: ToolsetOAuthListing,
    private readonly grants: OAuthGrantRepository,
  ) {}

  /** `requester`: the API key asking (`updatedBy`; changing a stdio toolset — how its process runs — needs `admin`). */
  async execute(id: string, body: UpdateToolsetBody, requester: Requester, signal?: AbortSignal): Promise<ToolsetRecord> {
    this.schedule.check(body.refreshIntervalMs);
    const toolset = await this.change(id, body, requester, signal);
    if (body.refreshIntervalMs !== undefined) await this.schedule.apply(id, toolset.refreshIntervalMs);
    return toolset;
  }

  private async change(id: string, body: UpdateToolsetBody, requester: Requester, signal?: AbortSignal): Promise<ToolsetRecord> {
    const current = await this.toolsets.connectionOf(id);
    if (!current) throw new NotFoundError('Toolset', id);
    const actor = requester.keyId;
    if (current.kind === 'stdio') {
      refuseStdioUnlessAdmin(current.kind, requester);
      const problems = HTTP_ONLY_FIELDS.filter((field) => body[field] !== undefined).map((field) => ({
        path: pointer([field]),
        code: 'NOT_APPLICABLE',
        message: `"${field}" does not apply to a stdio toolset`,
      }));
      if (problems.length) throw new InvalidRequestError(problems, 'The request body is invalid');
      return updatedOrThrow(
        id,
        await this.toolsets.update(id, current.revision, {
          name: body.name,
          timeoutMs: body.timeoutMs,
          refreshIntervalMs: body.refreshIntervalMs,
          process: body.process,
          updatedBy: actor,
        }),
      );
    }
    if (body.process !== undefined) {
      throw new InvalidRequestError(
        [{ path: '/process', code: 'NOT_APPLICABLE', message: '"process" applies to stdio toolsets only' }],
        'The request body is invalid',
      );
    }
    if (body.url !== undefined) {
      refuseSecretsOnNewOrigin(current.url, body.url, body.headers, current.headers);
      refuseClientSecretOnNewOrigin(current.url, body.url, body.auth, current.auth);
    }
    const auth = resolveAuth(body.auth, current.auth);
    const authChanged = !sameAuth(auth, current.auth);
    const headers = body.headers === undefined ? current.headers : resolveHeaders(body.headers, current.headers);
    const next = { url: body.url ?? current.url, headers, transport: body.transport ?? current.transport };
    const changes: ToolsetChanges = {
      name: body.name,
      timeoutMs: body.timeoutMs,
      refreshIntervalMs: body.refreshIntervalMs,
      updatedBy: actor,
    };
    let grant: OAuthGrant | undefined;
    if (this.connectionChanged(current, next) || authChanged) {
      const timeoutMs = body.timeoutMs === undefined ? current.timeoutMs : (body.timeoutMs ?? undefined);
      let listing: ToolsetListingInput;
      if (auth && authChanged) ({ listing, grant } = await this.oauthListing.list({ ...next, timeoutMs }, auth, requester, signal));
      else if (auth) listing = await this.oauthListing.listOrAwait({ ...next, timeoutMs, toolsetId: id, auth }, requester, signal);
      else listing = await this.listing.list({ ...next, timeoutMs }, requester, signal);
      Object.assign(changes, next, { listing }, authChanged ? { auth: auth ?? null } : {});
    }
    const updated = updatedOrThrow(id, await this.toolsets.update(id, current.revision, changes));
    if (authChanged) {
      await this.grants.deleteFor(id);
      if (grant) await this.grants.save(id, grant);
    }
    return updated;
  }

  private connectionChanged(current: HttpToolsetConnection, next: Pick<HttpToolsetConnection, 'url' | 'headers' | 'transport'>): boolean {
    return next.url !== current.url || next.transport !== current.transport || !sameHeaders(next.headers, current.headers);
  }
}
