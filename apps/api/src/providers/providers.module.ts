import { Module } from '@nestjs/common';
import { LlmModule, WorkflowStoreModule } from '#workflow/nest';
import { CreateProvider } from './create-provider.js';
import { DeleteProvider } from './delete-provider.js';
import { FindProviders } from './find-providers.js';
import { ProvidersController } from './providers.controller.js';
import { UpdateProvider } from './update-provider.js';

/** REST for LLM providers (SPEC §3 "Providers"). */
@Module({
  imports: [LlmModule, WorkflowStoreModule],
  controllers: [ProvidersController],
  providers: [CreateProvider, FindProviders, UpdateProvider, DeleteProvider],
})
export class ProvidersModule {}
