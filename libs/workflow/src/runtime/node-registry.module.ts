import { Global, Module } from '@nestjs/common';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import { llmNodeExecutors } from '../nodes/llm-nodes.js';

/**
 * The node types of this deployment, one registry for API (validation) and worker (runs).
 * More types (`llm`, `agent`) are registered in the factory below.
 */
export const NODE_REGISTRY = Symbol('NODE_REGISTRY');

/**
 * Optional: ports beyond tools/catalog/clock that the worker hands to node executors as
 * `services.extras` (e.g. the LLM client, under the key its node type reads).
 */
export const ENGINE_EXTRAS = Symbol('ENGINE_EXTRAS');

@Global()
@Module({
  providers: [
    {
      provide: NODE_REGISTRY,
      useFactory: () => {
        const registry = createDefaultNodeRegistry();
        // `llm` and `agent` read their model client from services.extras (LlmModule provides ENGINE_EXTRAS).
        llmNodeExecutors.forEach((executor) => registry.register(executor));
        return registry;
      },
    },
  ],
  exports: [NODE_REGISTRY],
})
export class NodeRegistryModule {}
