import { Module } from '@nestjs/common';
import { OutboundModule } from '../outbound/outbound.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { ToolsetCatalog } from './toolset-catalog.js';
import { ToolsetSnapshots } from './toolset-snapshots.js';
import { ToolsetRepository } from '../persistence/toolset.repository.js';
import { ToolsetTargets } from './toolset-targets.js';
import { ToolsetHealthChecker } from './toolset-health.js';
import { ToolCallRepository } from '../persistence/tool-call.repository.js';
import { ToolsetChangeRepository } from '../persistence/toolset-change.repository.js';
import { ToolsetRefresher } from './toolset-refresher.js';
import { ToolsetRefreshRequests } from '../queue/toolset-refresh-queue.js';
import { OAuthGrantRepository } from '../persistence/oauth-grant.repository.js';
import { OAuthRedis } from '../oauth/oauth-redis.js';
import { ToolsetOAuth } from '../oauth/toolset-oauth.js';

const TOOLSET_STORE = [
  ToolsetRepository,
  ToolsetCatalog,
  ToolsetTargets,
  ToolsetSnapshots,
  ToolsetHealthChecker,
  ToolCallRepository,
  ToolsetChangeRepository,
  ToolsetRefresher,
  ToolsetRefreshRequests,
  OAuthGrantRepository,
  OAuthRedis,
  ToolsetOAuth,
];

/**
 * Stored toolsets for the API and the worker: the repository (headers sealed/opened here only),
 * the engine's ToolCatalog, MCP targets with opened headers and the SSRF-safe fetch, and the
 * revision-cached snapshots runs read their toolsets through.
 * Needs ConfigModule and PersistenceModule (both global) in the importing app.
 */
@Module({
  imports: [SecretsModule, OutboundModule],
  providers: TOOLSET_STORE,
  exports: TOOLSET_STORE,
})
export class ToolsetStoreModule {}
