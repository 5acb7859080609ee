import type {
  HttpTransport,
  RequestedTransport,
  ResolvedTransport,
  ServerInfo,
  TargetKind,
  TokenEndpointAuthMethod,
  ToolSnapshot,
  TransportMode,
} from '#mcp';
import type { StdioProcessMode, StoredHealth, ToolsetDocument } from './toolset.schema.js';

/** What the toolset repository hands out and takes: summaries, records, connections, changes. */

/** What a listing of the server produced (libs/mcp `listToolset`). */
export interface ToolsetListingInput {
  serverInfo: ServerInfo;
  transport: ResolvedTransport;
  tools: ToolSnapshot[];
}

/** A toolset's OAuth settings, the client secret and private key in clear: for connecting only. */
export interface ToolsetAuthSettings {
  type: 'oauth';
  flow: 'authorization_code' | 'client_credentials';
  clientId?: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** `private_key_jwt`: a private JWK (JSON) and the algorithm it signs with. */
  privateKey?: string;
  signingAlgorithm?: string;
  scopes?: string[];
  /** Tokens per end-user subject: a run uses its subject's grant (docs/oauth.md, "Per end-user tokens"). */
  perUser?: boolean;
}

/** What answers may show of a toolset's OAuth settings (never the secret). */
export interface ToolsetAuthSummary {
  type: 'oauth';
  flow: 'authorization_code' | 'client_credentials';
  clientId?: string;
  hasClientSecret: boolean;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  hasPrivateKey: boolean;
  signingAlgorithm?: string;
  scopes?: string[];
  perUser?: boolean;
}

/** A toolset without its tools and without any header value. */
export interface ToolsetSummary {
  id: string;
  kind: TargetKind;
  name: string;
  /** http toolsets only. */
  url?: string;
  headerNames: string[];
  /** http toolsets that authorize with OAuth. */
  auth?: ToolsetAuthSummary;
  /** stdio toolsets only (env: names, never values). */
  command?: string;
  args?: string[];
  envNames?: string[];
  process?: StdioProcessMode;
  transport: RequestedTransport;
  resolvedTransport: ResolvedTransport;
  timeoutMs?: number;
  refreshIntervalMs?: number;
  serverInfo: ServerInfo;
  toolCount: number;
  toolsRefreshedAt: Date;
  health?: StoredHealth;
  revision: number;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolsetRecord extends ToolsetSummary {
  tools: ToolSnapshot[];
}

interface ConnectionCommon {
  timeoutMs?: number;
  revision: number;
}

/** How to reach a server by URL, header values in clear: for connecting only, never for responses or logs. */
export interface HttpToolsetConnection extends ConnectionCommon {
  kind?: 'http';
  /** The toolset's id (its OAuth grant is found by it); set on every stored toolset's connection. */
  id?: string;
  url: string;
  headers: Record<string, string>;
  auth?: ToolsetAuthSettings;
  transport: TransportMode;
  resolvedTransport: HttpTransport;
  /** The revision the server spoke at the last listing: connects try its path first. */
  protocolVersion?: string;
}

/** How to start a local server, env values in clear: for connecting only, never for responses or logs. */
export interface StdioToolsetConnection extends ConnectionCommon {
  kind: 'stdio';
  /** The toolset's id: its process gets a working directory of its own. */
  id: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  process: StdioProcessMode;
  transport: 'stdio';
  resolvedTransport: 'stdio';
}

export type ToolsetConnection = HttpToolsetConnection | StdioToolsetConnection;

/** The values a connection holds that are secrets (header or env values, OAuth client secret and private key): scrubbed from error messages. */
export function connectionSecrets(connection: {
  kind?: TargetKind;
  headers?: Record<string, string>;
  env?: Record<string, string>;
  auth?: Pick<ToolsetAuthSettings, 'clientSecret' | 'privateKey'>;
}): string[] {
  const values = Object.values((connection.kind === 'stdio' ? connection.env : connection.headers) ?? {});
  const auth = connection.kind === 'stdio' ? undefined : connection.auth;
  return [...values, ...[auth?.clientSecret, auth?.privateKey].filter((secret): secret is string => secret !== undefined)];
}

export type NewToolset = {
  name: string;
  timeoutMs?: number;
  refreshIntervalMs?: number;
  listing: ToolsetListingInput;
  /** Id of the API key creating it. */
  createdBy?: string;
} & (
  | { kind?: 'http'; url: string; headers: Record<string, string>; transport: TransportMode; auth?: ToolsetAuthSettings }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; process: StdioProcessMode }
);

export interface ToolsetChanges {
  name?: string;
  url?: string;
  headers?: Record<string, string>;
  /** stdio toolsets: the environment's values (written again on refresh, so they are re-sealed under the current key). */
  env?: Record<string, string>;
  process?: StdioProcessMode;
  transport?: TransportMode;
  /** OAuth settings replacing the stored ones (the client secret and private key sealed like header values); null removes them. */
  auth?: ToolsetAuthSettings | null;
  /** null removes the toolset's own timeout (the configured default applies). */
  timeoutMs?: number | null;
  /** null turns the periodic refresh off. */
  refreshIntervalMs?: number | null;
  listing?: ToolsetListingInput;
  /** Id of the API key making the change. */
  updatedBy?: string;
}

export type ToolsetUpdateOutcome = { ok: true; toolset: ToolsetRecord } | { ok: false; reason: 'missing' | 'conflict' };

export function toolsetSummaryOf(doc: ToolsetDocument): ToolsetSummary {
  const summary: ToolsetSummary = {
    id: String(doc._id),
    kind: doc.kind ?? 'http',
    name: doc.name,
    headerNames: doc.headers.map((header) => header.name),
    transport: doc.transport,
    resolvedTransport: doc.resolvedTransport,
    serverInfo: { name: doc.serverInfo.name, version: doc.serverInfo.version, protocolVersion: doc.serverInfo.protocolVersion },
    toolCount: doc.toolCount,
    toolsRefreshedAt: doc.toolsRefreshedAt,
    revision: doc.revision,
    createdBy: doc.createdBy ?? null,
    updatedBy: doc.updatedBy ?? null,
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
  if (typeof doc.timeoutMs === 'number') summary.timeoutMs = doc.timeoutMs;
  if (typeof doc.refreshIntervalMs === 'number') summary.refreshIntervalMs = doc.refreshIntervalMs;
  if (doc.health) summary.health = doc.health;
  if (doc.auth) {
    const { type, flow, clientId, clientSecret, tokenEndpointAuthMethod, privateKey, signingAlgorithm, scopes, perUser } = doc.auth;
    summary.auth = {
      type,
      flow,
      hasClientSecret: clientSecret !== undefined,
      hasPrivateKey: privateKey !== undefined,
      ...(clientId === undefined ? {} : { clientId }),
      ...(tokenEndpointAuthMethod === undefined ? {} : { tokenEndpointAuthMethod }),
      ...(signingAlgorithm === undefined ? {} : { signingAlgorithm }),
      ...(scopes === undefined ? {} : { scopes }),
      ...(perUser === true ? { perUser } : {}),
    };
  }
  if (doc.kind === 'stdio')
    Object.assign(summary, {
      command: doc.command,
      args: doc.args ?? [],
      envNames: (doc.env ?? []).map((entry) => entry.name),
      process: doc.process ?? 'per-run',
    });
  else summary.url = doc.url;
  return summary;
}

export function toolsOf(doc: Pick<ToolsetDocument, 'tools'>): ToolSnapshot[] {
  return doc.tools.map((tool) => JSON.parse(tool.snapshot) as ToolSnapshot);
}
