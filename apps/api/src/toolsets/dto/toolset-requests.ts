import { z } from 'zod';
import { readSigningKey, SIGNING_ALGORITHMS, SigningKeyError, TOKEN_ENDPOINT_AUTH_METHODS, TRANSPORT_MODES } from '#mcp';
import { httpUrl } from '../../common/http-url.js';

/** Request bodies of /toolsets (strict: unknown fields are rejected with their path). */

/** The value a response shows instead of a header value; sent back in a PATCH it means "keep it". */
export const MASK = '***';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the MCP client itself; a toolset cannot override them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

const url = httpUrl('send them as headers (stored encrypted)');

const headers = z
  .record(
    z.string(),
    z
      .string()
      .max(8192)
      .regex(/^[^\r\n\0]*$/, 'must not contain CR, LF or NUL'),
  )
  .superRefine((record, ctx) => {
    const seen = new Set<string>();
    for (const name of Object.keys(record)) {
      const lower = name.toLowerCase();
      if (!HEADER_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'not a valid HTTP header name' });
      else if (RESERVED_HEADERS.has(lower))
        ctx.addIssue({ code: 'custom', path: [name], message: `"${name}" is set by the MCP client and cannot be configured` });
      else if (seen.has(lower))
        ctx.addIssue({ code: 'custom', path: [name], message: `header "${name}" is given twice (names are case-insensitive)` });
      seen.add(lower);
    }
    if (seen.size > 50) ctx.addIssue({ code: 'custom', message: 'at most 50 headers' });
  });

const name = z.string().trim().min(1).max(200);
const transport = z.enum(TRANSPORT_MODES);
/** Per-call timeout of the toolset's tools; the configured MCP_CALL_TIMEOUT_MS applies when absent. */
const timeoutMs = z.number().int().min(100).max(3_600_000);
/** Optional periodic refresh of the tool snapshot; the operator's minimum (TOOLSET_REFRESH_MIN_INTERVAL_MS) is checked on top. */
const refreshIntervalMs = z
  .number()
  .int()
  .min(100)
  .max(30 * 86_400_000)
  .meta({ description: 'Take a new tool snapshot this often (ms; at least TOOLSET_REFRESH_MIN_INTERVAL_MS, 60000 by default)' });

/** A PEM or a JWK (object or JSON text); never echoed, so its size is bounded here. */
const MAX_PRIVATE_KEY_CHARS = 16_384;
const privateKey = z
  .union([z.string().min(1).max(MAX_PRIVATE_KEY_CHARS), z.record(z.string(), z.unknown())])
  .refine((key) => typeof key === 'string' || JSON.stringify(key).length <= MAX_PRIVATE_KEY_CHARS, 'the JWK is too large')
  .meta({
    description:
      'private_key_jwt: a PEM (PKCS#8, PKCS#1 or SEC1, no passphrase) or a private JWK (RSA ≥ 2048 bits, EC P-256/384/521, Ed25519). Stored encrypted; shown as "***"',
  });

/**
 * OAuth 2.1 to the server instead of (or beside) static headers. `grant`: `authorization_code`
 * (default; a person authorizes once through POST /toolsets/:id/authorize) or `client_credentials`
 * (headless; needs clientId and a clientSecret or a privateKey). Without clientId, mcpflow
 * registers itself. `tokenEndpointAuthMethod` `private_key_jwt` (implied by a privateKey) signs a
 * client assertion (RFC 7523) instead of sending a secret.
 */
export const toolsetAuth = z
  .strictObject({
    type: z.literal('oauth'),
    grant: z.enum(['authorization_code', 'client_credentials']).default('authorization_code'),
    clientId: z.string().trim().min(1).max(2048).optional(),
    clientSecret: z.string().min(1).max(4096).optional().meta({ description: 'Stored encrypted; shown as "***"' }),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional().meta({
      description:
        'How the client authenticates at the token endpoint; default: private_key_jwt with a privateKey, else client_secret_basic (client_secret_post when it is all the server lists)',
    }),
    privateKey: privateKey.optional(),
    signingAlgorithm: z.enum(SIGNING_ALGORITHMS).optional().meta({
      description:
        "private_key_jwt: the assertion's algorithm; default: the JWK's alg, else RS256 (RSA), ES256/384/512 (EC), EdDSA (Ed25519)",
    }),
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'not a valid OAuth scope'))
      .max(50)
      .optional()
      .meta({ description: "Asked for when neither the server's challenge nor its metadata names scopes" }),
    perUser: z.boolean().optional().meta({
      description: "Tokens per end user: each run uses its subject's own (a run whose subject has none waits for its authorization)",
    }),
  })
  .superRefine((auth, ctx) => {
    const problem = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    const method = auth.tokenEndpointAuthMethod ?? (auth.privateKey === undefined ? undefined : 'private_key_jwt');
    if (method === 'private_key_jwt') {
      if (auth.clientId === undefined) problem('clientId', "private_key_jwt needs clientId (the assertion's issuer and subject)");
      if (auth.privateKey === undefined) problem('privateKey', 'private_key_jwt needs privateKey');
      if (auth.clientSecret !== undefined) problem('clientSecret', 'a client that authenticates with private_key_jwt has no client secret');
    } else {
      if (auth.privateKey !== undefined) problem('privateKey', 'a private key is used with tokenEndpointAuthMethod "private_key_jwt" only');
      if (auth.signingAlgorithm !== undefined) problem('signingAlgorithm', 'a signing algorithm is used with "private_key_jwt" only');
      if (method !== undefined && auth.clientSecret === undefined) problem('clientSecret', `${method} needs clientSecret`);
    }
    if (auth.grant === 'client_credentials') {
      if (auth.perUser === true) problem('perUser', 'perUser needs the authorization_code grant (end users authorize themselves)');
      if (auth.clientId === undefined && method !== 'private_key_jwt') problem('clientId', 'client_credentials needs clientId');
      if (method === undefined && auth.clientSecret === undefined)
        problem('clientSecret', 'client_credentials needs clientSecret (or privateKey, to authenticate with private_key_jwt)');
    }
    // "***" (keep the stored key) is checked against the stored key when the PATCH is applied.
    if (method === 'private_key_jwt' && auth.privateKey !== undefined && auth.privateKey !== MASK) {
      try {
        readSigningKey(auth.privateKey, auth.signingAlgorithm);
      } catch (error) {
        if (!(error instanceof SigningKeyError)) throw error;
        problem(error.field, error.message);
      }
    }
  })
  .meta({ id: 'ToolsetAuth' });
export type ToolsetAuthBody = z.output<typeof toolsetAuth>;

export const createHttpToolsetBody = z.strictObject({
  name: name.optional(),
  url,
  headers: headers.default({}),
  auth: toolsetAuth.optional(),
  transport: transport.default('auto'),
  timeoutMs: timeoutMs.optional(),
  refreshIntervalMs: refreshIntervalMs.optional(),
});

const noNul = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\0]*$/, 'must not contain NUL');
/** A bare name (looked up on PATH) or an absolute path; the operator's allow-list decides whether it may run. */
const command = noNul(4096)
  .min(1)
  .refine((value) => !value.includes('/') || value.startsWith('/'), 'must be a command name or an absolute path');
/** `per-run` (default): a process per run, closed with it; `per-worker`: one process per worker, shared by its runs. */
const processMode = z.enum(['per-run', 'per-worker']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const env = z
  .record(z.string().regex(ENV_NAME, 'not a valid environment variable name'), noNul(32_768))
  .refine((record) => Object.keys(record).length <= 100, 'at most 100 variables');

export const createStdioToolsetBody = z.strictObject({
  name: name.optional(),
  command,
  args: z.array(noNul(4096)).max(200).default([]),
  /** Values are secrets like header values: sealed at rest, shown as "***". */
  env: env.default({}),
  process: processMode.default('per-run'),
  timeoutMs: timeoutMs.optional(),
  refreshIntervalMs: refreshIntervalMs.optional(),
});

/** A body with `command` is a local (stdio) server, any other a server by URL; each is checked by its own strict schema. */
export const createToolsetBody = z.unknown().transform((value, ctx) => {
  const stdio = typeof value === 'object' && value !== null && 'command' in value;
  const result = (stdio ? createStdioToolsetBody : createHttpToolsetBody).safeParse(value);
  if (!result.success) {
    for (const issue of result.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }
  return stdio
    ? { kind: 'stdio' as const, ...(result.data as z.output<typeof createStdioToolsetBody>) }
    : { kind: 'http' as const, ...(result.data as z.output<typeof createHttpToolsetBody>) };
});
export type CreateToolsetBody = z.output<typeof createToolsetBody>;
export type CreateHttpToolsetBody = Extract<CreateToolsetBody, { kind: 'http' }>;
export type CreateStdioToolsetBody = Extract<CreateToolsetBody, { kind: 'stdio' }>;

export const updateToolsetBody = z.strictObject({
  name: name.optional(),
  url: url.optional(),
  /** Replaces the whole set; a value of "***" keeps that header's stored value. */
  headers: headers.optional(),
  transport: transport.optional(),
  /**
   * Replaces the OAuth settings; a clientSecret or privateKey of "***" keeps the stored one.
   * Changed settings drop the stored grant: authorize again (client credentials: a token is
   * obtained at once). null removes OAuth and the stored grant (the tools are listed without it).
   */
  auth: toolsetAuth.nullable().optional(),
  /** stdio toolsets only. */
  process: processMode.optional(),
  timeoutMs: timeoutMs.nullable().optional(),
  /** null turns the periodic refresh off. */
  refreshIntervalMs: refreshIntervalMs.nullable().optional(),
});
export type UpdateToolsetBody = z.output<typeof updateToolsetBody>;

export const callToolBody = z.strictObject({
  arguments: z.record(z.string(), z.unknown()).default({}),
});
export type CallToolBody = z.output<typeof callToolBody>;
