import type { ValidationCode } from './validation-codes.js';
/**
 * The engine's vocabulary: workflow definitions, node executors and the ports through which
 * the pure engine reaches the outside world (MCP tools, models, persistence, time).
 * Nothing here may import Nest, mongoose, bullmq or the MCP SDK.
 */

export type JsonSchema = Record<string, unknown> | boolean;

/** A literal, a reference `<nodeId>.<outputKey>[.path…]`, or a `{{node.key}}` template. */
export type ValueSource = { value: unknown } | { ref: string } | { template: string };

export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
}

export interface NodeDefinition {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  inputs: Record<string, ValueSource>;
  catchError?: boolean;
  retry?: RetryPolicy;
  timeoutMs?: number;
}

/** Handles: `out` (default), `error`, `branch:<id>`, `else`. */
export interface EdgeDefinition {
  source: string;
  sourceHandle?: string;
  target: string;
}

export interface WorkflowDefinition {
  name: string;
  description?: string;
  inputSchema?: JsonSchema;
  nodes: NodeDefinition[];
  edges: EdgeDefinition[];
}

export type ValueType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'any' | `array<${string}>`;

/** A typed input or output of a node (same shape libs/mcp derives from JSON Schema). */
export interface TypedField {
  key: string;
  label: string;
  description?: string;
  valueType: ValueType;
  required: boolean;
  enum?: unknown[];
  default?: unknown;
  schema: JsonSchema;
}

/** What a toolset snapshot says about one tool, as the engine needs it. */
export interface ToolDescriptor {
  toolsetId: string;
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  inputs: TypedField[];
  outputs?: TypedField[];
  usable: boolean;
  unusableReason?: string;
  annotations?: Record<string, unknown>;
}

/** Port: looks tools up in stored toolset snapshots (validation and agent nodes). */
export interface ToolCatalog {
  getTool(toolsetId: string, tool: string): Promise<ToolDescriptor | undefined>;
  listTools(toolsetId: string): Promise<ToolDescriptor[] | undefined>;
}

/**
 * How an mcpTool node answers a tool that asks for input mid-call (elicitation / input_required):
 * with fixed values, with the requested schema's defaults, by declining (the default), or by
 * pausing the run until someone answers through the API (`pause`).
 */
export type ElicitationPolicy = { answer: Record<string, unknown> } | 'defaults' | 'decline' | 'pause';

/** A request for input a paused node waits on: what the tool asked (`INPUT_REQUIRED` error details carry it). */
export interface InputRequest {
  message: string;
  requestedSchema: JsonSchema;
}

/** One request for input a call met, and how it was answered (for the run log). */
export interface ElicitationRecord {
  message: string;
  action: 'accept' | 'decline' | 'cancel';
}

export interface ToolCallRequest {
  toolsetId: string;
  tool: string;
  arguments: Record<string, unknown>;
  signal: AbortSignal;
  timeoutMs?: number;
  /** The node's retry policy (or the tool's idempotentHint) allows resending a sent call. */
  mayRepeat?: boolean;
  elicitation?: ElicitationPolicy;
  /** The calling node (a paused node's answers are kept by node). */
  nodeId?: string;
  /** Sent in the MCP request's `_meta` (`mcpflow/idempotencyKey`): the same for a call's resends. */
  idempotencyKey?: string;
}

export interface ToolCallResult {
  isError: boolean;
  structuredContent?: unknown;
  text: string;
  content: unknown[];
  /** Log details: transport used, whether the pooled session was reused. */
  transport: string;
  sessionReused: boolean;
  /** Requests for input the call met, in order. */
  elicitations?: ElicitationRecord[];
}

/** Port: calls a tool through the run's MCP client pool. Throws an EngineError with a code. */
export interface ToolInvoker {
  callTool(request: ToolCallRequest): Promise<ToolCallResult>;
}

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** `waiting`: the node paused the run for input (its call ended `INPUT_REQUIRED`); it executes again on resume. */

export interface NodeErrorInfo {
  code: string;
  message: string;
}

/** An answer to a node's request for input (`POST /runs/:id/input`), with who gave it. */
export interface InputAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  /** The API key id that answered. */
  answeredBy?: string;
  /** ISO 8601. */
  answeredAt?: string;
}

/** An end user's OAuth authorization a node waits for (a per-user toolset): the URL to open, and whose grant it obtains. */
export interface AuthorizationRequest {
  toolsetId: string;
  /** `input:<value>` (the run input the workflow names as its subject) or `key:<API key id>`. */
  subject: string;
  /** Opened in a browser: the authorization server sends it back to the callback, which resumes the run. */
  url: string;
  /** ISO 8601: the URL works once, until then. */
  expiresAt: string;
}

/**
 * A request a node pauses the run on; with `resumeAt` (epoch ms) the run resumes by itself then,
 * answered or not. `authorization`: the node waits for an end user's OAuth authorization.
 */
export interface PauseRequest extends InputRequest {
  resumeAt?: number;
  authorization?: AuthorizationRequest;
}

/** What a node's earlier pauses in this run left: the last answer given, and when its scheduled resume is. */
export interface PauseState {
  answer?: InputAnswer;
  resumeAt?: number;
}

/**
 * Port: the run's durable waiting state, for nodes that pause the run for a person or for time
 * (approval, wait). A node calls `request`, then throws `INPUT_REQUIRED`: the run goes `waiting`
 * holding no worker, and the node executes again when the run resumes (answered, or `resumeAt` reached).
 */
export interface RunPauses {
  stateOf(nodeId: string): Promise<PauseState | undefined>;
  request(nodeId: string, request: PauseRequest): void;
}

/** The ports available to node executors. Optional ones are wired by the host when present. */
export interface EngineServices {
  tools: ToolInvoker;
  catalog: ToolCatalog;
  clock: Clock;
  /** The run's waiting state (set by hosts that can pause a run durably). */
  pauses?: RunPauses;
  /** Extra ports (e.g. the LLM client) registered by the host under a name. */
  extras?: Record<string, unknown>;
  /** Wraps each attempt of a node (the host's tracing: one span per node, the node's calls inside it); default none. */
  aroundNode?: <T>(node: NodeDefinition, attempt: number, execute: () => Promise<T>) => Promise<T>;
}

export interface NodeExecutionContext {
  runId: string;
  node: NodeDefinition;
  /**
   * The node's name in the run: its id, or in a map's body `<mapId>[<index>]/<id>` (a nested map
   * adds a level). The ports keyed by node (tool calls, pauses) get it from the engine already; a
   * node that keys a port of the host's (`extras`) by node uses this. Always set by `runWorkflow`.
   */
  nodeKey?: string;
  /** The node's inputs, resolved (references, templates and literals) and type-checked. */
  inputs: Record<string, unknown>;
  attempt: number;
  signal: AbortSignal;
  services: EngineServices;
  /** The run's inputs (what the `start` node publishes). Always set by `runWorkflow`. */
  runInputs?: Record<string, unknown>;
  /** Time budget of one outside call (MCP, model): the node's `timeoutMs` ?? the run's `callTimeoutMs` limit. */
  callTimeoutMs?: number;
  /** Resolves a value source found in the node's config (e.g. condition operands). Always set by `runWorkflow`. */
  resolveValue?(source: ValueSource): unknown;
  /**
   * Runs a sub-graph (a map's body, once per item) as part of this run: its executions go into the
   * run's log as `<nodeId>[<index>]/<bodyNodeId>` with `itemPath`, and a resumed run keeps what
   * already finished there. Always set by `runWorkflow`.
   */
  runSubgraph?(request: SubgraphRequest): Promise<SubgraphOutcome>;
}

export interface SubgraphRequest {
  workflow: WorkflowDefinition;
  /** What its `start` publishes. */
  inputs: Record<string, unknown>;
  /** The item's place; the log names the body's nodes by it. */
  index: number;
  signal: AbortSignal;
}

/** How a sub-graph ended (a RunOutcome's essentials). */
export interface SubgraphOutcome {
  status: 'succeeded' | 'failed' | 'canceled' | 'waiting';
  outputs: Record<string, unknown>;
  error?: NodeErrorInfo & { nodeId?: string };
  /** With `waiting`: the nodes that wait, named in the run (`each[3]/ask`). */
  waitingNodes?: string[];
}

export interface NodeResult {
  outputs: Record<string, unknown>;
  /** Handles to activate; defaults to `['out']`. */
  activeHandles?: string[];
  /** Type-specific log details (MCP: toolsetId, tool, transport, sessionReused, isError; LLM: model, usage, toolCalls). */
  details?: Record<string, unknown>;
}

export interface ValidationIssue {
  path: string;
  code: ValidationCode;
  message: string;
}

/** Port: the definitions of stored workflows, for nodes that call one (`workflow`); a workflow the saving key may not run reads as absent. */
export interface WorkflowCatalog {
  /** The version given, else the latest; undefined when there is none (or it is not the caller's to run). */
  definitionOf(workflowId: string, version?: number): Promise<WorkflowDefinition | undefined>;
}

export interface NodeValidationContext {
  node: NodeDefinition;
  nodePath: string;
  catalog: ToolCatalog;
  /** Stored workflows (absent where the host has none: then a called workflow's fields are free-form). */
  workflows?: WorkflowCatalog;
  /** The whole definition (the `start` node derives its outputs from `inputSchema`). */
  workflow?: WorkflowDefinition;
  /** Checks a sub-graph held in the node's config (a map's body) like a workflow; problems come back under `path`. */
  validateSubgraph?(definition: WorkflowDefinition, path: string): Promise<ValidationIssue[]>;
}

/** A value source that lives in a node's config rather than in `inputs` (checked like an input of type any). */
export interface ConfigValueSource {
  /** Path relative to the node, e.g. `/config/branches/0/when/all/1/left`. */
  path: string;
  source: ValueSource;
}

/** One node type. Registered in the executor registry; the engine knows nothing else about types. */
/** Something stored that a node uses by id: the API keeps it from deletion while the workflow's latest version uses it. */
export interface NodeReference {
  kind: 'toolset' | 'provider' | 'workflow';
  id: string;
  /** JSON pointer of the id inside the node, e.g. `/config/providerId`. */
  path: string;
  /** A workflow called at a pinned version. */
  version?: number;
  /** JSON pointer inside the node where a workflow reference's version lives: the API pins the latest there at save when it is absent. */
  versionPath?: string;
}

/** A sub-graph inside a node's config and where it is (`/config/body`). */
export interface NodeSubgraph {
  path: string;
  definition: WorkflowDefinition;
}

/**
 * A value in a node's config that the node type holds secret (a credential header): the workflow
 * store seals it at save (the definition keeps `"***"` in its place), and the host hands it back
 * in clear to that node only while a run executes it (`NODE_SECRETS_EXTRA`).
 */
export interface SecretConfigValue {
  /** JSON pointer inside the node, e.g. `/config/headers/Authorization/secret`. */
  path: string;
  /** As the body gives it: the clear value, or `"***"` to keep what the previous version stored at the same node and path. */
  value: string;
  /**
   * The URL the value is sent to: it belongs to that URL's origin, is kept across versions only
   * while the origin stays, and is handed to the node only for a request to that origin.
   */
  boundTo?: string;
}

/** What `GET /node-types` shows of a node type: for API clients, and the console's palette and config forms. */
export interface NodeTypeDescription {
  title: string;
  description: string;
  /** JSON Schema (2020-12) of the node's `config`. */
  configSchema: JsonSchema;
  /** Handles it can activate on success (besides `error`, which `catchError` adds). */
  handles: string[];
  /** Its inputs when they are fixed by the type; undefined when they depend on config (a tool's inputs) or are free-form. */
  inputs?: TypedField[];
  /** Its outputs when they are fixed by the type; undefined when they depend on config. */
  outputs?: TypedField[];
}

export interface NodeExecutor {
  type: string;
  /** What `GET /node-types` shows of this type; a type without it is listed with its name only. */
  describeType?(): NodeTypeDescription;
  /** Config and input checks at save time; `catalog` resolves tools. */
  validate?(ctx: NodeValidationContext): Promise<ValidationIssue[]>;
  /** Declared inputs (for required/type checks of references); undefined = free-form. */
  describeInputs?(ctx: NodeValidationContext): Promise<TypedField[] | undefined>;
  /** Declared outputs (for type checks of references made to this node); undefined = any. */
  describeOutputs?(ctx: NodeValidationContext): Promise<TypedField[] | undefined>;
  /** Handles this node can activate on success (besides `error`, which `catchError` adds); default `['out']`. */
  describeHandles?(node: NodeDefinition): string[];
  /** Value sources inside `config`, so that validation checks their references too. */
  configValueSources?(node: NodeDefinition): ConfigValueSource[];
  /** The toolsets, providers and workflows this node uses (delete protection, save-time checks); default none. */
  references?(node: NodeDefinition): NodeReference[];
  /**
   * Sub-graphs held in the node's config (a map's body), with their JSON pointer inside the node
   * (`/config/body`): what their nodes reference counts as this node's (`nodeReferencesOf`).
   */
  subgraphs?(node: NodeDefinition): NodeSubgraph[];
  /**
   * Config values this node holds secret (sealed by the workflow store, shown as `"***"`, given to
   * the node in clear only during a run); default none. Declared for the workflow's own nodes only.
   */
  secretConfig?(node: NodeDefinition): SecretConfigValue[];
  /** Toolsets whose MCP sessions the worker opens as soon as a run is claimed when this node is sure to run; default none. */
  connectsAhead?(node: NodeDefinition): string[];
  /**
   * No effect outside the run (the same inputs give the same outputs): a resume may compute it
   * again, so its record need not be durable before what follows starts; it rides on the run's
   * next durable write. Default false: a node that acts on the world (a tool, a model) is durable
   * before anything downstream starts, so that a resume never repeats it.
   */
  pure?: boolean;
  execute(ctx: NodeExecutionContext): Promise<NodeResult>;
}
