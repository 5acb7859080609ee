import { Injectable } from '@nestjs/common';
import { OAuthGrantRepository, ToolsetOAuth, ToolsetRepository, type OAuthStatus, type ToolsetSummary } from '#workflow/nest';
import { ApiError, NotFoundError } from '../common/api-errors.js';
import type { Requester } from './requester.js';
import { connectionFailure } from './toolset-errors.js';
import { authSecrets } from './toolset-oauth-listing.js';

export interface AuthorizationAnswer {
  state: OAuthStatus['state'];
  authorizationUrl?: string;
  expiresAt?: string;
}

/**
 * POST /toolsets/:id/authorize. Authorization code: the URL a person opens (PKCE, `resource`,
 * scopes; its `state` bound to this toolset and this key, single use, 10 minutes). Client
 * credentials: a new token at once, no person needed.
 */
@Injectable()
export class AuthorizeToolset {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly oauth: ToolsetOAuth,
    private readonly grants: OAuthGrantRepository,
  ) {}

  async execute(id: string, requester: Requester): Promise<AuthorizationAnswer> {
    const connection = await this.toolsets.connectionOf(id);
    if (!connection) throw new NotFoundError('Toolset', id);
    if (connection.kind === 'stdio' || !connection.auth)
      throw new ApiError('TOOLSET_NOT_OAUTH', `Toolset ${id} does not use OAuth (create it with auth: {type: "oauth"})`);
    const { url, auth } = connection;
    const secrets = authSecrets(auth);
    try {
      if (auth.flow === 'client_credentials') {
        await this.grants.save(id, await this.oauth.obtainClientCredentials(url, auth, await this.grants.previous(id)));
        return { state: 'authorized' };
      }
      const { authorizationUrl, expiresAt } = await this.oauth.begin(id, url, auth, requester.keyId);
      return { state: (await this.grants.status(id, url)).state, authorizationUrl, expiresAt: expiresAt.toISOString() };
    } catch (error) {
      throw connectionFailure(error, secrets, '/auth');
    }
  }
}

/** The OAuth state answers show beside a toolset (undefined for toolsets without OAuth). */
@Injectable()
export class ToolsetAuthStates {
  constructor(private readonly grants: OAuthGrantRepository) {}

  async of(toolset: Pick<ToolsetSummary, 'id' | 'auth' | 'url'>): Promise<OAuthStatus | undefined> {
    return toolset.auth && toolset.url ? this.grants.status(toolset.id, toolset.url) : undefined;
  }
}
