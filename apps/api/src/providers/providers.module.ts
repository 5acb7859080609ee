import { Module } from '@nestjs/common';
import { LlmModule } from '#workflow';
import { ProvidersController } from './providers.controller.js';
import { PROVIDER_USAGE, WorkflowsProviderUsage } from './provider-usage.js';
import { ProvidersService } from './providers.service.js';

/** REST for LLM providers (SPEC §3 "Providers"). */
@Module({
  imports: [LlmModule],
  controllers: [ProvidersController],
  providers: [ProvidersService, { provide: PROVIDER_USAGE, useClass: WorkflowsProviderUsage }],
})
export class ProvidersModule {}
