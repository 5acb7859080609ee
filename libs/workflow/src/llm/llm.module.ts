import { Module } from '@nestjs/common';
import { HTTP_FETCH_EXTRA } from '../nodes/http/http-port.js';
import { LLM_CLIENT_EXTRA, type LlmClient } from '../nodes/llm/llm-client.js';
import { OutboundHttp, OutboundModule } from '../outbound/outbound.module.js';
import { ProviderRepository } from '../persistence/provider.repository.js';
import { ENGINE_EXTRAS } from '../runtime/node-registry.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { createOpenAiLlmClient } from './openai-llm-client.js';

/** Injection token of the process's LlmClient (`@Inject(LLM_CLIENT) llm: LlmClient`). */
export const LLM_CLIENT = Symbol('LLM_CLIENT');

/**
 * Providers and the model client for the API and the worker: the repository (API keys sealed
 * and opened here only) and the openai-backed LlmClient that resolves providers through it and
 * reaches them through the SSRF-safe fetch. For the worker it also provides ENGINE_EXTRAS, the
 * ports handed to node executors, with the client under the key the `llm`/`agent` nodes read.
 * Needs ConfigModule and PersistenceModule (global).
 */
@Module({
  imports: [SecretsModule, OutboundModule],
  providers: [
    ProviderRepository,
    {
      provide: LLM_CLIENT,
      inject: [ProviderRepository, OutboundHttp],
      useFactory: (providers: ProviderRepository, outbound: OutboundHttp): LlmClient =>
        createOpenAiLlmClient({ providers, fetch: outbound.fetch }),
    },
    // `http` nodes send through the same SSRF-safe fetch (their per-run secret inputs come from the run executor).
    {
      provide: ENGINE_EXTRAS,
      inject: [LLM_CLIENT, OutboundHttp],
      useFactory: (llm: LlmClient, outbound: OutboundHttp) => ({ [LLM_CLIENT_EXTRA]: llm, [HTTP_FETCH_EXTRA]: outbound.fetch }),
    },
  ],
  exports: [ProviderRepository, LLM_CLIENT, ENGINE_EXTRAS],
})
export class LlmModule {}
