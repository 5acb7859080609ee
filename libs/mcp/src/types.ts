/**
 * The vocabulary of libs/mcp's public surface. No SDK type leaks through it, so a second client
 * implementation (e.g. for the stateless MCP revision) can sit behind the same interface.
 */

export type JsonSchema = Record<string, unknown> | boolean;

export type ValueType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'any' | `array<${string}>`;

/** A typed node input or output; structurally identical to `TypedField` in libs/workflow. */
export interface TypedField {
  key: string;
  label: string;
  description?: string;
  valueType: ValueType;
  required: boolean;
  enum?: unknown[];
  default?: unknown;
  /** The property's schema, self-contained: local `$defs`/`definitions` it refers to travel with it. */
  schema: JsonSchema;
}

/** The HTTP transports, in the order `auto` tries them. The one place their names are spelled. */
export const HTTP_TRANSPORTS = ['streamable-http', 'sse'] as const;
export type HttpTransport = (typeof HTTP_TRANSPORTS)[number];
/** What a toolset may ask for: one HTTP transport, or `auto` (Streamable HTTP, then SSE). */
export const TRANSPORT_MODES = ['auto', ...HTTP_TRANSPORTS] as const;
export type TransportMode = (typeof TRANSPORT_MODES)[number];
/** Every transport a session speaks: the HTTP ones, and stdio (a local process). */
export const TRANSPORTS = [...HTTP_TRANSPORTS, 'stdio'] as const;
export type ResolvedTransport = (typeof TRANSPORTS)[number];
/** What a toolset asks for: a transport mode, or stdio for a local command. */
export const REQUESTED_TRANSPORTS = [...TRANSPORT_MODES, 'stdio'] as const;
export type RequestedTransport = (typeof REQUESTED_TRANSPORTS)[number];
/** What a target is: a server by URL, or a local command. */
export const TARGET_KINDS = ['http', 'stdio'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export function isHttpTransport(transport: string): transport is HttpTransport {
  return (HTTP_TRANSPORTS as readonly string[]).includes(transport);
}
export type FetchFunction = typeof fetch;

interface TargetTimeouts {
  /** Default per-call timeout (no response and no progress for this long); 300 s if unset. */
  timeoutMs?: number;
  /** Bound on connecting, handshake included; 10 s if unset. */
  connectTimeoutMs?: number;
}

export interface McpHttpTarget extends TargetTimeouts {
  kind?: 'http';
  url: string;
  /** Static headers sent with every request (credentials): part of the pool key. */
  headers?: Record<string, string>;
  transport?: TransportMode;
  /**
   * The revision this server spoke last time (e.g. a toolset's stored `protocolVersion`): its path
   * is tried first, the other one only when that fails (the server changed). Unset: stateless first.
   */
  protocolVersion?: string;
  /** Used by the SDK transports instead of the global fetch (e.g. an SSRF-safe one). */
  fetch?: FetchFunction;
  /**
   * Names credentials the `fetch` adds itself (an OAuth grant: toolset and subject), so targets
   * that differ only in them never share a pooled client. Part of the pool key; never a secret.
   */
  credentialScope?: string;
  /**
   * Makes the credentials the `fetch` adds usable (an OAuth token about to expire is renewed),
   * awaited before the connect deadline starts: waiting for another process's renewal never
   * counts against the handshake.
   */
  prepareCredentials?: () => Promise<void>;
  /**
   * How long the `fetch` has waited for renewals of its credentials so far (ms): a connect that
   * failed after such a wait (it spent its deadline there) is tried once more.
   */
  credentialRenewalMs?: () => number;
}

export interface McpStdioTarget extends TargetTimeouts {
  kind: 'stdio';
  command: string;
  args?: string[];
  /** Added to a minimal inherited environment (HOME, PATH, …), never the whole parent env. */
  env?: Record<string, string>;
  cwd?: string;
}

export type McpTarget = McpHttpTarget | McpStdioTarget;

export interface ConnectOptions {
  /** Overrides the target's fetch for HTTP transports. */
  fetch?: FetchFunction;
  /** Aborts connecting (MCP_CANCELED). */
  signal?: AbortSignal;
  clientInfo?: { name: string; version: string };
  /**
   * Called with the id of every Streamable HTTP session the connection opens — the first, and any
   * that replaces a session the server lost — as soon as the handshake is done. Not for SSE or stdio
   * (those sessions end with their stream or process).
   */
  onSessionOpened?: (sessionId: string) => void;
  /**
   * Answers a server's request for input mid-call: a 2025-11-25 `elicitation/create` request, or an
   * elicitation inside a 2026-07-28 `input_required` result (the call is then retried with the
   * answer). Without it the client declares no elicitation capability. Answering with a deferral
   * (`{defer: true}`) ends the call with MCP_INPUT_REQUIRED instead (see `PendingInput`).
   */
  onElicitation?: (request: ElicitationRequest) => Promise<ElicitationAnswer | ElicitationDeferral>;
  /**
   * Called when the server sends `notifications/tools/list_changed` on this connection (any of its
   * sessions): the caller decides what to do (e.g. take a new snapshot). Must not throw.
   */
  onToolsListChanged?: () => void;
}

/** A form the server asks the user (or the workflow) to fill in. */
export interface ElicitationRequest {
  message: string;
  requestedSchema: JsonSchema;
}

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** With `accept`: the values, shaped by `requestedSchema`. */
  content?: Record<string, unknown>;
}

/**
 * An answerer's way of leaving a request for later (a run that pauses for a person): the call ends
 * with MCP_INPUT_REQUIRED, whose `pendingInput` says what was asked, and nothing is held open.
 */
export interface ElicitationDeferral {
  defer: true;
}

/** What a deferred call asked for, and how to send it again once answered. */
export interface PendingInput {
  request: ElicitationRequest;
  /**
   * A 2026-07-28 `input_required` round: the answer goes into `inputResponses[key]` beside the
   * round's other answers, with `requestState` echoed, when the call is sent again. Absent for a
   * 2025-11-25 `elicitation/create`: that call was abandoned (the server saw it canceled), and is
   * sent afresh, the same question then answered at once.
   */
  resume?: { key: string; requestState?: string; answered: Record<string, ElicitationAnswer> };
}

/** Answers to a 2026-07-28 call's `input_required`, sent with the call (`inputResponses`, `requestState`). */
export interface InputResponses {
  responses: Record<string, ElicitationAnswer>;
  requestState?: string;
}

/** One way a connect was tried: a transport, and the revision when it was the stateless 2026-07-28 one. */
export interface ConnectAttempt {
  transport: ResolvedTransport;
  protocolVersion?: string;
}

export interface ServerInfo {
  name: string;
  version: string;
  protocolVersion: string;
}

export interface ToolSnapshot {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
  inputs: TypedField[];
  outputs?: TypedField[];
  usable: boolean;
  unusableReason?: string;
}

/**
 * A content block as the server sent it, every field kept (annotations, `_meta`, resource
 * metadata). `type` is one of text, image, audio, resource, resource_link, or a newer one.
 */
export interface McpContent {
  type: string;
  [field: string]: unknown;
}

export interface NormalizedToolResult {
  isError: boolean;
  structuredContent?: unknown;
  /** The text blocks joined by newlines ('' when there are none). */
  text: string;
  content: McpContent[];
}

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallToolOptions {
  /** No response and no progress for this long → MCP_TIMEOUT. Defaults to the target's timeoutMs. */
  timeoutMs?: number;
  /** Progress resets `timeoutMs`, but never beyond this total (default: the larger of timeoutMs and 30 min). */
  maxTotalTimeoutMs?: number;
  /** Abort → the server receives notifications/cancelled and the call fails with MCP_CANCELED. */
  signal?: AbortSignal;
  onProgress?: (update: ProgressUpdate) => void;
  /** Arguments are validated against it before sending; defaults to the schema seen in listTools(). */
  inputSchema?: JsonSchema;
  /** structuredContent is validated against it; defaults to the schema seen in listTools(). */
  outputSchema?: JsonSchema;
  /**
   * Answers elicitations this call causes, instead of the connection's `onElicitation` (which must
   * be set, so that the client declares the capability). Lets calls sharing a pooled connection
   * answer differently.
   */
  onElicitation?: ConnectOptions['onElicitation'];
  /** Sends the call as the retry of an `input_required` round (2026-07-28 servers only; others ignore it). */
  inputResponses?: InputResponses;
  /** The request's `_meta` (sessionful servers): e.g. the idempotency key that a resend of one call repeats. */
  meta?: Record<string, unknown>;
}

export interface ListToolsOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Why a connection stopped being trustworthy: its transport closed, or reported an error. */
export type ConnectionFailure = { kind: 'close' } | { kind: 'error'; error: Error };

export interface McpConnection {
  readonly serverInfo: ServerInfo;
  readonly transport: ResolvedTransport;
  readonly closed: boolean;
  /** The current Streamable HTTP session id (`Mcp-Session-Id`); undefined for SSE and stdio. */
  readonly sessionId: string | undefined;
  /** Every page (follows nextCursor); a tool whose schema cannot compile is marked unusable. */
  listTools(options?: ListToolsOptions): Promise<ToolSnapshot[]>;
  callTool(name: string, args: Record<string, unknown>, options?: CallToolOptions): Promise<NormalizedToolResult>;
  /** Terminates the HTTP session (DELETE) first, then closes the transport. Idempotent. */
  close(): Promise<void>;
  /** Called on an unexpected transport close or error (not during close()); returns an unsubscribe. */
  onFailure(listener: (failure: ConnectionFailure) => void): () => void;
}
