import { Module } from '@nestjs/common';
import type { LlmClient } from '../nodes/llm/llm-client.js';
import { OutboundHttp, OutboundModule } from '../outbound/outbound.module.js';
import { ProviderRepository } from '../persistence/provider.repository.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { createOpenAiLlmClient } from './openai-llm-client.js';

/** Injection token of the process's LlmClient (`@Inject(LLM_CLIENT) llm: LlmClient`). */
export const LLM_CLIENT = Symbol('LLM_CLIENT');

/**
 * Providers and the model client for the API and the worker: the repository (API keys sealed
 * and opened here only) and the openai-backed LlmClient that resolves providers through it and
 * reaches them through the SSRF-safe fetch. Needs ConfigModule and PersistenceModule (global).
 */
@Module({
  imports: [SecretsModule, OutboundModule],
  providers: [
    ProviderRepository,
    {
      provide: LLM_CLIENT,
      inject: [ProviderRepository, OutboundHttp],
      useFactory: (providers: ProviderRepository, outbound: OutboundHttp): LlmClient => createOpenAiLlmClient({ providers, fetch: outbound.fetch }),
    },
  ],
  exports: [ProviderRepository, LLM_CLIENT],
})
export class LlmModule {}
