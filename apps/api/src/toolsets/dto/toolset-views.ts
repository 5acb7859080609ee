import type {
  NormalizedToolResult,
  RequestedTransport,
  ResolvedTransport,
  ServerInfo,
  TargetKind,
  TokenEndpointAuthMethod,
  ToolSnapshot,
} from '#mcp';
import type { OAuthStatus, StdioProcessMode, StoredHealth, ToolsetRecord, ToolsetSummary } from '#workflow/nest';
import { MASK } from './toolset-requests.js';

/** Response bodies of /toolsets. Header and env values never appear: every one is shown as "***". */

export interface ToolView {
  name: string;
  title?: string;
  description?: string;
  usable: boolean;
  unusableReason?: string;
  inputs: ToolSnapshot['inputs'];
  outputs?: ToolSnapshot['outputs'];
  inputSchema: ToolSnapshot['inputSchema'];
  outputSchema?: ToolSnapshot['outputSchema'];
  annotations?: ToolSnapshot['annotations'];
}

export interface ToolsetSummaryView {
  id: string;
  kind: TargetKind;
  name: string;
  /** http toolsets: the server's URL and its headers (values masked). */
  url?: string;
  headers?: Record<string, string>;
  /** OAuth toolsets: the settings (secret masked) and whether a usable grant is held. */
  auth?: ToolsetAuthView;
  /** stdio toolsets: the command, its arguments and its environment (values masked). */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  process?: StdioProcessMode;
  /** The transport the server spoke at the last listing. */
  transport: ResolvedTransport;
  /** What the toolset asks for (`auto` probes Streamable HTTP, then legacy SSE; `stdio` for local servers). */
  requestedTransport: RequestedTransport;
  /** The MCP revision the server spoke at the last listing (`2024-11-05` … `2026-07-28`): its path is tried first. */
  protocolVersion: string;
  timeoutMs: number | null;
  /** The periodic refresh's interval; null = none (list_changed and manual refreshes only). */
  refreshIntervalMs: number | null;
  serverInfo: ServerInfo;
  toolCount: number;
  toolsRefreshedAt: string;
  /** Ids of the API keys that created the toolset and last changed it. */
  createdBy: string | null;
  updatedBy: string | null;
  /** The last health check; null before the first. */
  health: HealthView | null;
  createdAt: string;
  updatedAt: string;
}

export interface ToolsetAuthView {
  type: 'oauth';
  grant: 'authorization_code' | 'client_credentials';
  clientId?: string;
  clientSecret?: typeof MASK;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  privateKey?: typeof MASK;
  signingAlgorithm?: string;
  scopes?: string[];
  /** Tokens per end-user subject; `state` is then the toolset's own grant's (listing its tools). */
  perUser?: boolean;
  /** `authorized`, or `needs_authorization` (POST /toolsets/:id/authorize). */
  state: OAuthStatus['state'];
  /** When the access token expires (it is renewed before); null when unknown or not authorized. */
  expiresAt: string | null;
  /** Why a person must authorize (again). */
  reason?: string;
  /** A larger scope the server asked for: the next authorization asks for it. */
  requiredScope?: string;
}

export function authView(toolset: Pick<ToolsetSummary, 'auth'>, status: OAuthStatus | undefined): ToolsetAuthView | undefined {
  if (!toolset.auth) return undefined;
  const { flow, clientId, hasClientSecret, tokenEndpointAuthMethod, hasPrivateKey, signingAlgorithm, scopes, perUser } = toolset.auth;
  const state = status ?? { state: 'needs_authorization' as const };
  return {
    type: 'oauth',
    grant: flow,
    ...(clientId === undefined ? {} : { clientId }),
    ...(hasClientSecret ? { clientSecret: MASK } : {}),
    ...(tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod }),
    ...(hasPrivateKey ? { privateKey: MASK } : {}),
    ...(signingAlgorithm === undefined ? {} : { signingAlgorithm }),
    ...(scopes === undefined ? {} : { scopes }),
    ...(perUser === true ? { perUser } : {}),
    state: state.state,
    expiresAt: state.expiresAt?.toISOString() ?? null,
    ...(state.reason === undefined ? {} : { reason: state.reason }),
    ...(state.requiredScope === undefined ? {} : { requiredScope: state.requiredScope }),
  };
}

export interface HealthView {
  ok: boolean;
  checkedAt: string;
  latencyMs: number;
  protocolVersion?: string;
  error?: { code: string; message: string };
}

export function healthView(health: StoredHealth): HealthView {
  const view: HealthView = { ok: health.ok, checkedAt: health.checkedAt.toISOString(), latencyMs: health.latencyMs };
  if (health.protocolVersion !== undefined) view.protocolVersion = health.protocolVersion;
  if (health.error) view.error = { code: health.error.code, message: health.error.message };
  return view;
}

export interface ToolsetView extends ToolsetSummaryView {
  tools: ToolView[];
}

export type ToolsetPreviewView = Omit<
  ToolsetView,
  'id' | 'createdAt' | 'updatedAt' | 'toolsRefreshedAt' | 'health' | 'createdBy' | 'updatedBy' | 'refreshIntervalMs'
>;

export function maskHeaders(names: Iterable<string>): Record<string, string> {
  return Object.fromEntries([...names].map((name) => [name, MASK]));
}

export function toolView(tool: ToolSnapshot): ToolView {
  const view: ToolView = { name: tool.name, usable: tool.usable, inputs: tool.inputs, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) view.title = tool.title;
  if (tool.description !== undefined) view.description = tool.description;
  if (tool.unusableReason !== undefined) view.unusableReason = tool.unusableReason;
  if (tool.outputs !== undefined) view.outputs = tool.outputs;
  if (tool.outputSchema !== undefined) view.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) view.annotations = tool.annotations;
  return view;
}

/** Where the server is: url and headers, or command, args and env (secret values masked). */
export function whereView(toolset: Pick<ToolsetSummary, 'kind' | 'url' | 'headerNames' | 'command' | 'args' | 'envNames' | 'process'>) {
  return toolset.kind === 'stdio'
    ? {
        command: toolset.command ?? '',
        args: toolset.args ?? [],
        env: maskHeaders(toolset.envNames ?? []),
        process: toolset.process ?? 'per-run',
      }
    : { url: toolset.url ?? '', headers: maskHeaders(toolset.headerNames) };
}

/** `status`: the OAuth grant's state, for OAuth toolsets (`needs_authorization` when not given). */
export function toolsetSummaryView(toolset: ToolsetSummary, status?: OAuthStatus): ToolsetSummaryView {
  const auth = authView(toolset, status);
  return {
    id: toolset.id,
    kind: toolset.kind,
    name: toolset.name,
    ...whereView(toolset),
    ...(auth ? { auth } : {}),
    transport: toolset.resolvedTransport,
    requestedTransport: toolset.transport,
    protocolVersion: toolset.serverInfo.protocolVersion,
    timeoutMs: toolset.timeoutMs ?? null,
    refreshIntervalMs: toolset.refreshIntervalMs ?? null,
    serverInfo: toolset.serverInfo,
    toolCount: toolset.toolCount,
    toolsRefreshedAt: toolset.toolsRefreshedAt.toISOString(),
    createdBy: toolset.createdBy,
    updatedBy: toolset.updatedBy,
    health: toolset.health ? healthView(toolset.health) : null,
    createdAt: toolset.createdAt.toISOString(),
    updatedAt: toolset.updatedAt.toISOString(),
  };
}

export function toolsetView(toolset: ToolsetRecord, status?: OAuthStatus): ToolsetView {
  return { ...toolsetSummaryView(toolset, status), tools: toolset.tools.map(toolView) };
}

export interface ToolCallView extends NormalizedToolResult {
  tool: string;
  transport: ResolvedTransport;
  durationMs: number;
}
