import { Schema, type Types } from 'mongoose';
import {
  REQUESTED_TRANSPORTS,
  TARGET_KINDS,
  TOKEN_ENDPOINT_AUTH_METHODS,
  TRANSPORTS,
  type RequestedTransport,
  type ResolvedTransport,
  type TargetKind,
  type TokenEndpointAuthMethod,
  type TransportMode,
} from '#mcp';

/**
 * A toolset: one MCP server — by URL (`kind: 'http'`, the default of documents written before
 * stdio existed) or a local command (`kind: 'stdio'`) — and the snapshot of its tools taken at
 * create/refresh.
 *
 * - Header values and stdio `env` values are secrets: stored sealed by the SecretBox
 *   (AES-256-GCM), names in clear.
 * - Each tool's snapshot (schemas, typed inputs/outputs, annotations) is stored as one JSON
 *   string: JSON Schemas are full of keys MongoDB (and FerretDB even more) treats specially
 *   (`$ref`, `$defs`, `$schema`, dotted property names), and a string keeps them byte-exact.
 * - `revision` grows with every write, so a refresh or PATCH that connected to the server in
 *   the meantime only lands if nobody else wrote since (no transactions needed).
 */
export const TOOLSET_MODEL = 'Toolset';
export const TOOLSETS_COLLECTION = 'toolsets';

export type { TransportMode };
/** How a worker runs a stdio toolset's server: a process per run (isolated), or one per worker process shared by its runs (fast). */
export type StdioProcessMode = 'per-run' | 'per-worker';

export interface StoredHeader {
  name: string;
  /** Sealed by the SecretBox; never the plaintext. */
  value: string;
}

/** `auth: {type: "oauth"}`: how tokens are obtained; the tokens themselves live in `oauth_grants`. */
export interface StoredToolsetAuth {
  type: 'oauth';
  flow: 'authorization_code' | 'client_credentials';
  clientId?: string;
  /** Sealed by the SecretBox. */
  clientSecret?: string;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** `private_key_jwt`: the private key as a JWK, sealed by the SecretBox; the algorithm it signs with. */
  privateKey?: string;
  signingAlgorithm?: string;
  scopes?: string[];
  /** Tokens per end-user subject (`oauth_grants` keyed by toolset and subject); runs never use the toolset's own. */
  perUser?: boolean;
}

export interface StoredTool {
  name: string;
  usable: boolean;
  /** JSON of the tool's ToolSnapshot (libs/mcp). */
  snapshot: string;
}

/** The last health check (`POST /toolsets/:id/check` or the periodic one). */
export interface StoredHealth {
  ok: boolean;
  checkedAt: Date;
  latencyMs: number;
  protocolVersion?: string;
  error?: { code: string; message: string };
}

export interface ToolsetDocument {
  _id: Types.ObjectId;
  /** Absent on documents written before stdio toolsets existed: 'http'. */
  kind?: TargetKind;
  name: string;
  /** http toolsets only. */
  url?: string;
  headers: StoredHeader[];
  /** http toolsets that authorize with OAuth. */
  auth?: StoredToolsetAuth;
  /** stdio toolsets only: the program, its arguments, and its extra environment (values sealed). */
  command?: string;
  args?: string[];
  env?: StoredHeader[];
  /** stdio toolsets only; absent = 'per-run'. */
  process?: StdioProcessMode;
  /** What the user asked for ('stdio' for stdio toolsets). */
  transport: RequestedTransport;
  /** What the server spoke at the last listing. */
  /** What the server spoke at the last listing. */
  resolvedTransport: ResolvedTransport;
  timeoutMs?: number | null;
  /** Optional periodic refresh of the snapshot (one worker at a time); absent = only on list_changed or by hand. */
  refreshIntervalMs?: number;
  serverInfo: { name: string; version: string; protocolVersion: string };
  tools: StoredTool[];
  toolCount: number;
  toolsRefreshedAt: Date;
  health?: StoredHealth;
  revision: number;
  /** Ids of the API keys that created the toolset and last changed it (absent before keys existed). */
  createdBy?: string | null;
  updatedBy?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Its own schema: a field named `type` is only read as a field (not a type declaration) at a schema's top level. */
const ToolsetAuthSchema = new Schema<StoredToolsetAuth>(
  {
    type: { type: String, enum: ['oauth'], required: true },
    flow: { type: String, enum: ['authorization_code', 'client_credentials'], required: true },
    clientId: { type: String },
    clientSecret: { type: String },
    tokenEndpointAuthMethod: { type: String, enum: TOKEN_ENDPOINT_AUTH_METHODS },
    privateKey: { type: String },
    signingAlgorithm: { type: String },
    scopes: { type: [String], default: undefined },
    perUser: { type: Boolean },
  },
  { _id: false },
);

export const ToolsetSchema = new Schema<ToolsetDocument>(
  {
    kind: { type: String, required: false, enum: TARGET_KINDS },
    name: { type: String, required: true },
    url: { type: String, required: false },
    headers: { type: [{ _id: false, name: { type: String, required: true }, value: { type: String, required: true } }], default: [] },
    auth: { type: ToolsetAuthSchema, required: false },
    command: { type: String, required: false },
    args: { type: [String], default: undefined },
    env: { type: [{ _id: false, name: { type: String, required: true }, value: { type: String, required: true } }], default: undefined },
    process: { type: String, required: false, enum: ['per-run', 'per-worker'] },
    transport: { type: String, required: true, enum: REQUESTED_TRANSPORTS },
    resolvedTransport: { type: String, required: true, enum: TRANSPORTS },
    timeoutMs: { type: Number, required: false },
    refreshIntervalMs: { type: Number, required: false },
    serverInfo: {
      _id: false,
      type: { name: { type: String }, version: { type: String }, protocolVersion: { type: String } },
      required: true,
    },
    tools: {
      type: [
        {
          _id: false,
          name: { type: String, required: true },
          usable: { type: Boolean, required: true },
          snapshot: { type: String, required: true },
        },
      ],
      default: [],
    },
    toolCount: { type: Number, required: true },
    toolsRefreshedAt: { type: Date, required: true },
    health: {
      _id: false,
      type: {
        ok: { type: Boolean, required: true },
        checkedAt: { type: Date, required: true },
        latencyMs: { type: Number, required: true },
        protocolVersion: { type: String },
        error: { _id: false, type: { code: { type: String }, message: { type: String } } },
      },
      required: false,
    },
    revision: { type: Number, required: true, default: 1 },
    createdBy: { type: String, default: null },
    updatedBy: { type: String, default: null },
  },
  { collection: TOOLSETS_COLLECTION, timestamps: true, versionKey: false, minimize: false },
);
