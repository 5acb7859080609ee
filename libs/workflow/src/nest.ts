// Infrastructure surface of libs/workflow (`#workflow/nest`): typed config, Nest modules,
// persistence (mongoose schemas and repositories), the queue contract, secrets and adapters.
// The pure engine and node types are the other entry point, `#workflow` (./index.ts).

// Configuration (shared by API and worker)
export * from './config/app-config.js';
export * from './config/config.module.js';

// Traces (OpenTelemetry, off unless the OTEL_* variables ask for them)
export * from './tracing/tracing.js';

// Queue: the API ↔ worker contract
export * from './queue/run-queue.js';
export { QUEUES, handBackWhileRateLimited, openQueue, openWorker, type QueueKind, type WorkerTuning } from './queue/job-queues.js';
export * from './queue/run-jobs.js';
export * from './queue/run-stream.js';
export { RunQueueProducer, type RunJobState } from './queue/run-queue-producer.js';

// Persistence: collections shared by API and worker; ids and cursor pages without mongoose in the apps
export * from './persistence/persistence.module.js';
export { isStoredId, newStoredId } from './persistence/object-ids.js';
export { OUTAGE_RETRY_AFTER_SECONDS, outageOf, type OutageCode } from './persistence/outages.js';
export type { Page, PageRequest } from './persistence/paging.js';

// Secrets: AES-256-GCM at rest (toolset headers, provider API keys)
export { createSecretBox, SecretBoxError, type SecretBox, type SecretBoxOptions } from './secrets/secret-box.js';
export { SECRET_BOX, SecretsModule } from './secrets/secrets.module.js';
export {
  ConfigSecretsRefused,
  nestedSecretProblems,
  openConfigSecrets,
  sealConfigSecrets,
  type ConfigSecretProblem,
  type SealDefinition,
  type SealedConfigSecret,
} from './secrets/config-secrets.js';
export { SECRET_MASK, scrubSecrets } from './engine/scrub-secrets.js';
export * from './engine/secret-inputs.js';

// Toolsets: stored MCP servers, the engine's ToolCatalog over them, MCP targets with opened headers
export * from './persistence/toolset.schema.js';
export * from './persistence/toolset.repository.js';
export * from './persistence/toolset-records.js';
export { ToolsetCatalog, toolDescriptorOf } from './toolsets/toolset-catalog.js';
export {
  ToolsetTargets,
  connectionSpecOf,
  connectionTarget,
  type ConnectionSpec,
  type HttpConnectionSpec,
  type StdioConnectionSpec,
  type TargetOptions,
} from './toolsets/toolset-targets.js';
export { StdioRefusedError, stdioRefusal, type StdioRefusalCode } from './stdio/stdio-policy.js';
export { ToolsetSnapshots, type ToolsetSnapshot } from './toolsets/toolset-snapshots.js';
export { ToolsetHealthChecker, type ToolsetHealth } from './toolsets/toolset-health.js';
export { ToolCallRepository, percentileRank, type ToolCallRecord, type ToolUsage } from './persistence/tool-call.repository.js';
export type { ToolsetChangeSource } from './persistence/toolset-change.schema.js';
export { ToolsetChangeRepository, type ToolsetChange } from './persistence/toolset-change.repository.js';
export { ToolsetRefresher, type RefreshOutcome } from './toolsets/toolset-refresher.js';
export { diffTools, type ToolDiff } from './persistence/tool-diff.js';
export * from './queue/toolset-refresh-queue.js';
export { ToolsetStoreModule } from './toolsets/toolset-store.module.js';
// OAuth toolsets: grants sealed in oauth_grants, renewals locked in Redis, the authorization's two halves
export { OAuthGrantRepository, type OAuthStatus } from './persistence/oauth-grant.repository.js';
export { OAuthRedis, OAuthLockTimeoutError } from './oauth/oauth-redis.js';
export * from './oauth/toolset-oauth.js';
export { OutboundHttp, OutboundModule } from './outbound/outbound.module.js';

// LLM: providers and the OpenAI-compatible LlmClient adapter
export type { ProviderResolver } from './llm/provider-resolver.js';
export { createOpenAiLlmClient, type OpenAiLlmClientOptions } from './llm/openai-llm-client.js';
export { LLM_CLIENT, LlmModule } from './llm/llm.module.js';
export * from './persistence/provider.repository.js';

// Workflows and runs: stored definitions and versions, runs, node executions (the MongoDB RunStore)
export * from './persistence/run-record.js';
export type { NewRun, RunCompletion, RunTrigger } from './persistence/run-documents.js';
export * from './persistence/run-input.js';
export {
  WorkflowRepository,
  type StoredWorkflow,
  type StoredWorkflowVersion,
  type WorkflowRecord,
  type WorkflowReferences,
  type WorkflowVersionSummary,
} from './persistence/workflow.repository.js';
export { RunRepository, type InsertRunResult, type RunPause } from './persistence/run.repository.js';
export { RunSessionRepository, type RunMcpSession } from './persistence/run-session.repository.js';
export { NodeExecutionRepository, toExecutionRecord, type LoggedExecutionDoc } from './persistence/node-execution.repository.js';
export { RunJournal, RunJournals, StaleClaimError, type JournalMarkerDoc, type JournalMarkerKind } from './persistence/run-journal.js';
export {
  RunHistoryRepository,
  type RetentionPolicy,
  type PruneOptions,
  type PruneResult,
  type DeleteRunOutcome,
} from './persistence/run-history.repository.js';
export { WorkflowStoreModule } from './persistence/workflow-store.module.js';
// Cancels and their cascade to sub-workflow runs (API's POST /runs/:id/cancel, the worker's end of a run)
export { ChildRunRepository, type ActiveChildRun } from './persistence/child-run.repository.js';
export { CANCEL_SIGNALS, RunCancellation, type CancelOutcome, type CancelSignals } from './runs/run-cancellation.js';
export { cascadeReason } from './runs/cascade-reason.js';
// The stored shapes of runs and their records, for benchmarks and store tests that build the
// repositories over their own collections; the apps get records from the repositories instead.
export { RUN_MODEL, RunSchema, type RunDoc } from './persistence/run.schema.js';
export { NODE_EXECUTION_MODEL, NodeExecutionSchema, type NodeExecutionDoc } from './persistence/node-execution.schema.js';
export { RUN_MCP_SESSION_MODEL, RunMcpSessionSchema, type RunMcpSessionRecordDoc } from './persistence/run-session.schema.js';
export type { PublishedToolDoc } from './persistence/mcp-server.schema.js';
export {
  McpServerRepository,
  type McpServerRecord,
  type NewMcpServer,
  type McpServerChanges,
} from './persistence/mcp-server.repository.js';
export { toRunView, toLogItem, type RunView, type LogItem, type InputRequestView } from './persistence/run-views.js';
export { NODE_REGISTRY, ENGINE_EXTRAS, NodeRegistryModule } from './runtime/node-registry.module.js';

// API keys: stored hashed (the API's auth guard and key management read them here)
export { ApiKeyRepository, type ApiKeyRecord, type NewApiKey, type StoredApiKey } from './persistence/api-key.repository.js';

// Metrics: the Prometheus series of API and worker (one Metrics per application)
export * from './metrics/metrics.js';
export { MetricsModule } from './metrics/metrics.module.js';
export { SNAPSHOT_INTERVAL_MS, pushWorkerSnapshot, readWorkerSnapshots } from './metrics/worker-snapshots.js';
export { OTHER_LABEL_VALUE } from './metrics/bounded-label.js';

// Triggers: schedules (BullMQ job schedulers, croner for cron) and inbound webhooks
export * from './persistence/trigger-vocabulary.js';
export { ScheduleRepository, type ScheduleRecord, type ScheduleTiming, type NewSchedule } from './persistence/schedule.repository.js';
export { WebhookRepository, type WebhookRecord, type NewWebhook, type HookInputMapping } from './persistence/webhook.repository.js';
export { TriggerRunsRepository, type TriggeredRunSummary } from './persistence/trigger-runs.repository.js';
export * from './triggers/schedule-queue.js';
export * from './triggers/schedule-timing.js';
export { withInputDefaults, inputsFit, openedInputs } from './triggers/trigger-inputs.js';
export { TriggerStoreModule } from './triggers/trigger-store.module.js';
