import { Controller, Get, Query } from '@nestjs/common';
import { ApiKeyRepository, AuthorizationStateError, ToolsetOAuth, ToolsetRepository } from '#workflow/nest';
import { Public } from '../api-keys/access.decorators.js';
import { ApiError } from '../common/api-errors.js';
import { ZodPipe } from '../common/zod-validation.js';
import { ApiRoute } from '../common/api-route.js';
import { oauthCallbackQuery, oauthRoutes, type OAuthCallbackQuery } from './oauth.routes.js';
import { RefreshToolset } from './refresh-toolset.js';
import { ResumeAuthorizedRun } from '../runs/resume-authorized-run.js';
import { connectionFailure } from './toolset-errors.js';

/**
 * Where authorization servers send a person's browser back (`<PUBLIC_BASE_URL>/oauth/callback`):
 * public, because the browser carries no API key — the single-use `state` is what binds it to the
 * toolset and the key that asked. And mcpflow's Client ID Metadata Document, public by nature.
 */
@Controller('oauth')
export class OAuthController {
  constructor(
    private readonly oauth: ToolsetOAuth,
    private readonly toolsets: ToolsetRepository,
    private readonly keys: ApiKeyRepository,
    private readonly refreshToolset: RefreshToolset,
    private readonly resumeRun: ResumeAuthorizedRun,
  ) {}

  @Get('callback')
  @Public()
  @ApiRoute(oauthRoutes.callback)
  async callback(@Query(new ZodPipe(oauthCallbackQuery, 'query')) query: OAuthCallbackQuery) {
    if (query.error !== undefined || query.code === undefined) {
      const message = `The authorization server answered ${query.error ?? 'without a code'}${query.error_description ? `: ${query.error_description}` : ''}`;
      throw new ApiError('OAUTH_AUTHORIZATION_DENIED', message, [{ path: '/error', code: 'OAUTH_AUTHORIZATION_DENIED', message }]);
    }
    let completed;
    try {
      const callback = { state: query.state, code: query.code, ...(query.iss ? { iss: query.iss } : {}) };
      completed = await this.oauth.complete(callback, async (id, keyId) => {
        const key = keyId === null ? undefined : await this.keys.findById(keyId);
        if (keyId !== null && (!key || key.revokedAt)) return undefined;
        const connection = await this.toolsets.connectionOf(id);
        return connection && connection.kind !== 'stdio' ? connection : undefined;
      });
    } catch (error) {
      if (error instanceof AuthorizationStateError)
        throw new ApiError('OAUTH_STATE_INVALID', error.message, [{ path: '/state', code: 'OAUTH_STATE_INVALID', message: error.message }]);
      throw connectionFailure(error, [], '/code');
    }
    if (completed.run) {
      // An end user's grant (per-user toolset): the run that waited for it goes on; the toolset's tools stay as listed.
      const resumed = await this.resumeRun.execute(completed.run.runId, completed.run.nodeId);
      return { toolsetId: completed.toolsetId, state: 'authorized' as const, runId: completed.run.runId, runResumed: resumed };
    }
    // The tools are listed with the new grant, as the key that asked (its `updatedBy`).
    const { toolset } = await this.refreshToolset.execute(completed.toolsetId, { keyId: completed.keyId ?? '', admin: false });
    return { toolsetId: toolset.id, state: 'authorized' as const, toolCount: toolset.toolCount };
  }

  @Get('client-metadata.json')
  @Public()
  @ApiRoute(oauthRoutes.clientMetadata)
  clientMetadata() {
    const base = this.oauth.publicUrl();
    const settings = this.oauth.settings({ type: 'oauth', flow: 'authorization_code' });
    return {
      client_id: settings.clientMetadataUrl,
      client_name: 'mcpflow',
      client_uri: base,
      redirect_uris: [settings.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
}
