// Pure surface of libs/workflow (`#workflow`): the engine, the node contract and the node types.
// Importing it pulls no Nest, mongoose, bullmq or ioredis; infrastructure (config, persistence,
// queue, Nest modules) is the other entry point, `#workflow/nest` (./nest.ts).

// Engine: contract types and ports
export type * from './engine/types.js';
export type { ExecutionRecord, RunStore, InMemoryRunStore } from './engine/run-store.js';
export type { RunEvent, RunOutcome, RunStats, RunError } from './engine/run-events.js';
export * from './engine/statuses.js';
export { VALIDATION_CODES, type ValidationCode } from './engine/validation-codes.js';
export type { RedactInputs } from './engine/execution-record.js';

// Engine: validation and the run loop
export { validateWorkflow, type ValidateWorkflowOptions } from './engine/validate-workflow.js';
export { runWorkflow, type RunWorkflowOptions } from './engine/run-workflow.js';
export { DEFAULT_ENGINE_LIMITS, resolveLimits, type EngineLimits } from './engine/limits.js';
export { createNodeRegistry, type NodeRegistry } from './engine/registry.js';
export { nodeReferencesOf, referencesOf, toolsetsToConnectAhead, type DefinitionReferences } from './engine/node-references.js';
export { ENGINE_ERROR_CODES, EngineError, toEngineError, type EngineErrorCode, type EngineErrorOptions } from './engine/errors.js';
export { START_NODE_TYPE, END_NODE_TYPE, DEFAULT_HANDLE, ERROR_HANDLE } from './engine/graph.js';
export { valueFits, typeFits } from './engine/value-types.js';
export { createInMemoryRunStore } from './engine/run-store.js';
export { planReplay, upstreamChanges, type ReplayRefusal } from './engine/replay-plan.js';
export { systemClock } from './engine/clock.js';
export { NODE_SECRETS_EXTRA, SECRET_CONFIG_MISSING, type NodeSecrets } from './engine/node-secrets.js';
export { runSubject, subjectInputKey, SUBJECT_KEYWORD, MAX_SUBJECT_LENGTH, type RunSubject } from './engine/run-subject.js';

// Node types
export { builtInNodeExecutors, createDefaultNodeRegistry } from './nodes/built-in-nodes.js';
export { startNode } from './nodes/start.js';
export { mcpToolNode } from './nodes/mcp-tool.js';
export { conditionNode } from './nodes/condition.js';
export { templateNode } from './nodes/template.js';
export { setNode } from './nodes/set.js';
export { codeNode, CODE_LIMITS } from './nodes/code.js';
export { CODE_ERROR_CODES } from './nodes/code/code-errors.js';
export { httpNode } from './nodes/http.js';
export { HTTP_ERROR_CODES, HTTP_FETCH_EXTRA, RUN_SECRETS_EXTRA, type HttpFetch, type RunSecrets } from './nodes/http/http-port.js';
export { endNode } from './nodes/end.js';
export {
  workflowNode,
  CHILD_RUNS_EXTRA,
  CHILD_RECHECK_MS,
  MAX_WORKFLOW_DEPTH,
  type ChildRun,
  type ChildRunRequest,
  type ChildRuns,
} from './nodes/workflow.js';

// LLM node types and the LlmClient port they call
export { llmNode } from './nodes/llm.js';
export { agentNode } from './nodes/agent/agent-node.js';
export { llmNodeExecutors } from './nodes/llm-nodes.js';
/** Log redaction of tool arguments (credential-like names, schema `writeOnly` / `format: password`); reusable by hosts. */
export { redactArguments, REDACTED } from './nodes/agent/redact-arguments.js';
export * from './nodes/llm/llm-client.js';
