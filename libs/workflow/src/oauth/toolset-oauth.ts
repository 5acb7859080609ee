import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  beginAuthorization,
  completeAuthorization,
  createOAuthCredentials,
  createOAuthFetch,
  McpError,
  McpErrorCode,
  obtainClientCredentials,
  originOf,
  type FetchFunction,
  type OAuthClientSettings,
  type OAuthCredentials,
  type OAuthContext,
  type OAuthGrant,
  type OAuthGrantStore,
  type PendingAuthorization,
} from '#mcp';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OutboundHttp } from '../outbound/outbound.module.js';
import { SECRET_BOX } from '../secrets/secrets.module.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { ToolsetAuthSettings } from '../persistence/toolset-records.js';
import { OAuthGrantRepository } from '../persistence/oauth-grant.repository.js';
import { OAuthRedis } from './oauth-redis.js';

/** How long an authorization URL stays good (its `state` in Redis). */
export const AUTHORIZATION_TTL_MS = 10 * 60_000;
export const OAUTH_CALLBACK_PATH = '/oauth/callback';
export const CLIENT_METADATA_PATH = '/oauth/client-metadata.json';

/** A run waiting for an end user's authorization (per-user toolsets): the callback resumes it. */
export interface WaitingRun {
  runId: string;
  nodeId: string;
}

/** Whose grant an authorization obtains, and the run that waits for it. */
export interface AuthorizationFor {
  /** The end-user subject (per-user toolsets); '' or absent: the toolset's own grant. */
  subject?: string;
  run?: WaitingRun;
}

/** What `POST /toolsets/:id/authorize` (or a waiting run) started and the callback finishes (sealed in Redis). */
interface PendingRecord {
  toolsetId: string;
  /** The API key that asked: the callback only completes while it still exists. */
  keyId: string | null;
  serverUrl: string;
  pending: PendingAuthorization;
  subject?: string;
  run?: WaitingRun;
}

export interface CompletedAuthorization {
  toolsetId: string;
  keyId: string | null;
  /** '' for the toolset's own grant. */
  subject: string;
  run?: WaitingRun;
}

export class AuthorizationStateError extends Error {
  readonly code = 'OAUTH_STATE_INVALID';
}

/**
 * OAuth for toolsets: the settings mcpflow presents (redirect URL and client metadata document
 * under PUBLIC_BASE_URL), the bearer fetch of a stored toolset's connections, and the two halves
 * of an authorization. Grants are sealed in `oauth_grants`; renewals lock in Redis.
 */
@Injectable()
export class ToolsetOAuth {
  constructor(
    private readonly grants: OAuthGrantRepository,
    private readonly redis: OAuthRedis,
    private readonly outbound: OutboundHttp,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Where this service is reached from outside: PUBLIC_BASE_URL, else the API's own address. */
  publicUrl(): string {
    return this.config.mcp.publicBaseUrl ?? `http://${this.config.api.host}:${this.config.api.port}`;
  }

  settings(auth: ToolsetAuthSettings): OAuthClientSettings {
    return {
      redirectUrl: `${this.publicUrl()}${OAUTH_CALLBACK_PATH}`,
      clientMetadataUrl: `${this.publicUrl()}${CLIENT_METADATA_PATH}`,
      clientName: 'mcpflow',
      ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
      ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
      ...(auth.tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod: auth.tokenEndpointAuthMethod }),
      ...(auth.privateKey === undefined ? {} : { privateKey: auth.privateKey }),
      ...(auth.signingAlgorithm === undefined ? {} : { signingAlgorithm: auth.signingAlgorithm }),
      ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
    };
  }

  /**
   * The fetch of a stored OAuth toolset's connections (its grant's token added, renewed under the
   * lock), and its preparation. `subject`: an end user's grant of a per-user toolset ('' = the toolset's own).
   */
  credentialsFor(toolsetId: string, serverUrl: string, auth: ToolsetAuthSettings, subject = ''): OAuthCredentials {
    return createOAuthCredentials({ ...this.context(serverUrl, auth), store: this.storeFor(toolsetId, serverUrl, subject) });
  }

  /** The fetch for a grant not stored yet (listing before a client-credentials toolset is saved). */
  fetchWithGrant(serverUrl: string, auth: ToolsetAuthSettings, grant: OAuthGrant): FetchFunction {
    let held = grant;
    const store: OAuthGrantStore = {
      load: async () => held,
      save: async (next) => {
        held = next;
      },
      exclusive: (work) => work(),
      lost: async () => undefined,
    };
    return createOAuthFetch({ ...this.context(serverUrl, auth), store });
  }

  obtainClientCredentials(serverUrl: string, auth: ToolsetAuthSettings, previous?: OAuthGrant): Promise<OAuthGrant> {
    return obtainClientCredentials(this.context(serverUrl, auth), previous);
  }

  /**
   * Starts an authorization for a person to complete: the URL to open. `target.subject`: an end
   * user's grant (the toolset's own registered client and metadata are reused for it when that
   * subject has none yet: one client, many users); `target.run`: the run the callback resumes.
   */
  async begin(toolsetId: string, serverUrl: string, auth: ToolsetAuthSettings, keyId: string | null, target: AuthorizationFor = {}) {
    const state = randomBytes(24).toString('base64url');
    const subject = target.subject ?? '';
    const [own, previous, status] = await Promise.all([
      subject === '' ? undefined : this.grants.previous(toolsetId),
      this.grants.previous(toolsetId, subject),
      this.grants.status(toolsetId, serverUrl, subject),
    ]);
    const reused = previous?.client ? previous : (own ?? previous);
    const { authorizationUrl, pending } = await beginAuthorization(this.context(serverUrl, auth), {
      state,
      ...(reused ? { previous: reused } : {}),
      ...(status.requiredScope ? { scope: status.requiredScope } : {}),
    });
    const record: PendingRecord = {
      toolsetId,
      keyId,
      serverUrl,
      pending,
      ...(subject === '' ? {} : { subject }),
      ...(target.run ? { run: target.run } : {}),
    };
    await this.redis.putPending(state, this.box.seal(JSON.stringify(record)), AUTHORIZATION_TTL_MS);
    return { authorizationUrl, expiresAt: new Date(Date.now() + AUTHORIZATION_TTL_MS) };
  }

  /**
   * Finishes the authorization `state` names (once: a second callback finds nothing), provided the
   * toolset still points at the origin it was started for. `current` reads the toolset now, and
   * answers undefined when the key that started the authorization may no longer act (revoked).
   */
  async complete(
    callback: { state: string; code: string; iss?: string },
    current: (toolsetId: string, keyId: string | null) => Promise<{ url: string; auth?: ToolsetAuthSettings } | undefined>,
  ): Promise<CompletedAuthorization> {
    const sealed = await this.redis.takePending(callback.state);
    if (sealed === undefined)
      throw new AuthorizationStateError('unknown, used or expired state: start again with POST /toolsets/:id/authorize');
    const record = JSON.parse(this.box.open(sealed)) as PendingRecord;
    const toolset = await current(record.toolsetId, record.keyId);
    if (!toolset?.auth || originOf(toolset.url) !== originOf(record.serverUrl))
      throw new AuthorizationStateError(
        'since the authorization started, the toolset was deleted or moved to another server, or the API key that asked was revoked',
      );
    const grant = await completeAuthorization(this.context(toolset.url, toolset.auth), record.pending, callback);
    const subject = record.subject ?? '';
    await this.grants.save(record.toolsetId, grant, subject);
    return { toolsetId: record.toolsetId, keyId: record.keyId, subject, ...(record.run ? { run: record.run } : {}) };
  }

  /** Each subject's grant is its own: its own reads and renewals in this process, its own Redis lock. */
  private storeFor(toolsetId: string, serverUrl: string, subject: string): OAuthGrantStore {
    return {
      key: JSON.stringify([toolsetId, subject, serverUrl]),
      load: () => this.grants.load(toolsetId, serverUrl, subject),
      save: (grant) => this.grants.save(toolsetId, grant, subject),
      exclusive: (work) => this.redis.exclusive(lockName(toolsetId, subject), work),
      lost: (reason, scope) => this.grants.lose(toolsetId, reason, scope, subject),
    };
  }

  private context(serverUrl: string, auth: ToolsetAuthSettings): OAuthContext {
    return { serverUrl, settings: this.settings(auth), fetch: this.outbound.fetch };
  }
}

/** The renewal lock of a grant: `<toolsetId>` for the toolset's own, `<toolsetId>:<sha256 of the subject>` for an end user's. */
export function lockName(toolsetId: string, subject: string): string {
  return subject === '' ? toolsetId : `${toolsetId}:${createHash('sha256').update(subject).digest('base64url')}`;
}

export function isAuthRequired(error: unknown): boolean {
  return error instanceof McpError && error.code === McpErrorCode.AUTH_REQUIRED;
}
