import { Module } from '@nestjs/common';
import { OutboundModule } from '../outbound/outbound.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { ToolsetCatalog } from './toolset-catalog.js';
import { ToolsetRepository } from './toolset.repository.js';
import { ToolsetTargets } from './toolset-targets.js';

/**
 * Stored toolsets for the API and the worker: the repository (headers sealed/opened here only),
 * the engine's ToolCatalog and MCP targets with opened headers and the SSRF-safe fetch.
 * Needs ConfigModule and PersistenceModule (both global) in the importing app.
 */
@Module({
  imports: [SecretsModule, OutboundModule],
  providers: [ToolsetRepository, ToolsetCatalog, ToolsetTargets],
  exports: [ToolsetRepository, ToolsetCatalog, ToolsetTargets],
})
export class ToolsetStoreModule {}
