// Public surface of libs/workflow. Engine exports go above; infrastructure (config,
// persistence, queue) below — apps import only from here (`#workflow`).

// Engine: contract types and ports
export type * from './engine/types.js';
export type { ExecutionRecord, RunStore, InMemoryRunStore } from './engine/run-store.js';
export type { RunEvent, RunOutcome, RunStats, RunStatus, RunError } from './engine/run-events.js';
export type { RedactInputs } from './engine/execution-record.js';

// Engine: validation and the run loop
export { validateWorkflow, type ValidateWorkflowOptions } from './engine/validate-workflow.js';
export { runWorkflow, type RunWorkflowOptions } from './engine/run-workflow.js';
export { DEFAULT_ENGINE_LIMITS, resolveLimits, type EngineLimits } from './engine/limits.js';
export { createNodeRegistry, type NodeRegistry } from './engine/registry.js';
export { ENGINE_ERROR_CODES, EngineError, toEngineError, type EngineErrorOptions } from './engine/errors.js';
export { START_NODE_TYPE, END_NODE_TYPE, DEFAULT_HANDLE, ERROR_HANDLE } from './engine/graph.js';
export { valueFits, typeFits } from './engine/value-types.js';
export { createInMemoryRunStore } from './engine/run-store.js';
export { systemClock } from './engine/clock.js';

// Node types
export { builtInNodeExecutors, createDefaultNodeRegistry } from './nodes/built-in-nodes.js';
export { startNode } from './nodes/start.js';
export { mcpToolNode } from './nodes/mcp-tool.js';
export { conditionNode } from './nodes/condition.js';
export { templateNode } from './nodes/template.js';
export { endNode } from './nodes/end.js';

// Configuration (shared by API and worker)
export * from './config/app-config.js';
export * from './config/config.module.js';

// Queue: the API ↔ worker contract
export * from './queue/run-queue.js';

// Persistence: collections shared by API and worker
export * from './persistence/persistence.module.js';

// Secrets: AES-256-GCM at rest (toolset headers, provider API keys)
export { createSecretBox, SecretBoxError, type SecretBox, type SecretBoxOptions } from './secrets/secret-box.js';
export { SECRET_BOX, SecretsModule } from './secrets/secrets.module.js';

// Toolsets: stored MCP servers, the engine's ToolCatalog over them, MCP targets with opened headers
export * from './persistence/toolset.schema.js';
export * from './persistence/toolset.repository.js';
export { ToolsetCatalog, toolDescriptorOf } from './persistence/toolset-catalog.js';
export {
  ToolsetTargets,
  connectionSpecOf,
  connectionTarget,
  type ConnectionSpec,
  type HttpConnectionSpec,
  type StdioConnectionSpec,
  type TargetOptions,
} from './persistence/toolset-targets.js';
export { StdioRefusedError, stdioRefusal, type StdioRefusalCode } from './stdio/stdio-policy.js';
export { ToolsetSnapshots, type ToolsetSnapshot } from './persistence/toolset-snapshots.js';
export { ToolsetStoreModule } from './persistence/toolset-store.module.js';
export { OutboundHttp, OutboundModule } from './outbound/outbound.module.js';

// LLM: providers, the LlmClient port and the `llm` / `agent` node types
export { llmNode } from './nodes/llm.js';
export { agentNode } from './nodes/agent/agent-node.js';
export { llmNodeExecutors } from './nodes/llm-nodes.js';
/** Log redaction of tool arguments (credential-like names, schema `writeOnly` / `format: password`); reusable by hosts. */
export { redactArguments, REDACTED } from './nodes/agent/redact-arguments.js';
export * from './nodes/llm/llm-client.js';
export type { ProviderEndpoint, ProviderResolver } from './llm/provider-resolver.js';
export { createOpenAiLlmClient, type OpenAiLlmClientOptions } from './llm/openai-llm-client.js';
export { LLM_CLIENT, LlmModule } from './llm/llm.module.js';
export * from './persistence/provider.schema.js';
export * from './persistence/provider.repository.js';

// Workflows and runs: stored definitions and versions, runs, node executions (the MongoDB RunStore)
export * from './persistence/workflow.schema.js';
export * from './persistence/run.schema.js';
export * from './persistence/node-execution.schema.js';
export * from './persistence/run-session.schema.js';
export { WorkflowRepository, type StoredWorkflow, type StoredWorkflowVersion, type WorkflowReferences } from './persistence/workflow.repository.js';
export { RunRepository, type NewRun, type InsertRunResult, type RunCompletion } from './persistence/run.repository.js';
export { RunSessionRepository } from './persistence/run-session.repository.js';
export { NodeExecutionRepository, toExecutionRecord, type LoggedExecutionDoc } from './persistence/node-execution.repository.js';
export { WorkflowStoreModule } from './persistence/workflow-store.module.js';
export { toRunView, toLogItem, type RunView, type LogItem } from './persistence/run-views.js';
export { NODE_REGISTRY, ENGINE_EXTRAS, NodeRegistryModule } from './runtime/node-registry.module.js';
export * from './queue/run-jobs.js';
export * from './queue/run-stream.js';
export { RunQueueProducer, type RunJobState } from './queue/run-queue-producer.js';

// API keys: stored hashed (the API's auth guard and key management read them here)
export * from './persistence/api-key.schema.js';
export { ApiKeyRepository, type ApiKeyRecord, type NewApiKey, type StoredApiKey } from './persistence/api-key.repository.js';
