import { Module } from '@nestjs/common';
import { LlmModule, WorkflowStoreModule } from '#workflow/nest';
import { ProvidersController } from './providers.controller.js';
import { ProvidersService } from './providers.service.js';

/** REST for LLM providers (SPEC §3 "Providers"). */
@Module({
  imports: [LlmModule, WorkflowStoreModule],
  controllers: [ProvidersController],
  providers: [ProvidersService],
})
export class ProvidersModule {}
