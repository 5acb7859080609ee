import { Injectable } from '@nestjs/common';
import { readSigningKey, type OAuthGrant } from '#mcp';
import { ApiError } from '../common/api-errors.js';
import { ToolsetOAuth, type HttpConnectionSpec, type ToolsetAuthSettings, type ToolsetListingInput } from '#workflow/nest';
import { MASK, type ToolsetAuthBody } from './dto/toolset-requests.js';
import type { Requester } from './requester.js';
import { ToolsetListing } from './toolset-listing.js';
import { connectionFailure } from './toolset-errors.js';

/**
 * The settings a (validated) body gives. A private key is kept as a private JWK with its algorithm
 * resolved; one given as "***" is left out here (resolved against the stored one by a PATCH).
 */
export function authSettingsOf(auth: ToolsetAuthBody): ToolsetAuthSettings {
  const method = auth.tokenEndpointAuthMethod ?? (auth.privateKey === undefined ? undefined : 'private_key_jwt');
  const key =
    auth.privateKey === undefined || auth.privateKey === MASK ? undefined : readSigningKey(auth.privateKey, auth.signingAlgorithm);
  return {
    type: 'oauth',
    flow: auth.grant,
    ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
    ...(auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret }),
    ...(method === undefined ? {} : { tokenEndpointAuthMethod: method }),
    ...(key === undefined ? {} : { privateKey: key.jwk, signingAlgorithm: key.algorithm }),
    ...(auth.scopes === undefined ? {} : { scopes: auth.scopes }),
    ...(auth.perUser === true ? { perUser: true } : {}),
  };
}

/** The secrets of OAuth settings, scrubbed from any error message. */
export function authSecrets(auth: ToolsetAuthSettings): string[] {
  return [auth.clientSecret, auth.privateKey].filter((secret): secret is string => secret !== undefined && secret !== '');
}

/** A listing to store before anyone authorized: no tools yet, the server's details unknown. */
function awaitingAuthorization(spec: HttpConnectionSpec): ToolsetListingInput {
  return {
    serverInfo: { name: '', version: '', protocolVersion: 'unknown' },
    transport: spec.transport === 'sse' ? 'sse' : 'streamable-http',
    tools: [],
  };
}

/**
 * The first listing of an OAuth toolset. Client credentials: a token is obtained first and the
 * tools listed with it (the grant is returned, to be stored with the toolset). Authorization code:
 * nobody has authorized yet, so a server that refuses (401) gives an empty listing and the toolset
 * starts `needs_authorization`.
 */
@Injectable()
export class ToolsetOAuthListing {
  constructor(
    private readonly listing: ToolsetListing,
    private readonly oauth: ToolsetOAuth,
  ) {}

  async list(
    spec: HttpConnectionSpec,
    auth: ToolsetAuthSettings,
    requester: Requester,
    signal?: AbortSignal,
  ): Promise<{ listing: ToolsetListingInput; grant?: OAuthGrant }> {
    if (auth.flow === 'client_credentials') {
      let grant: OAuthGrant;
      try {
        grant = await this.oauth.obtainClientCredentials(spec.url, auth);
      } catch (error) {
        throw connectionFailure(error, authSecrets(auth), '/auth');
      }
      const listing = await this.listing.list(spec, requester, signal, this.oauth.fetchWithGrant(spec.url, auth, grant));
      return { listing, grant };
    }
    return { listing: await this.listOrAwait(spec, requester, signal) };
  }

  /**
   * The listing of a stored OAuth toolset whose URL, headers or transport change: with its grant
   * (`spec.toolsetId`, `spec.auth`) while the origin stays; a refusal (another origin, a lost grant)
   * stores the change with no tools, to be authorized again.
   */
  async listOrAwait(spec: HttpConnectionSpec, requester: Requester, signal?: AbortSignal): Promise<ToolsetListingInput> {
    try {
      return await this.listing.list(spec, requester, signal);
    } catch (error) {
      // The listing's failure is already an API error: the server refused the client (no usable grant).
      if (error instanceof ApiError && (error.code === 'MCP_AUTH_FAILED' || error.code === 'MCP_AUTH_REQUIRED'))
        return awaitingAuthorization(spec);
      throw error;
    }
  }
}
