import { z } from 'zod';
import { REQUESTED_TRANSPORTS, TARGET_KINDS, TOKEN_ENDPOINT_AUTH_METHODS, TRANSPORTS } from '#mcp';

/** Answers of /toolsets as zod schemas: they describe the routes in the OpenAPI document. */

const jsonSchema = z
  .union([z.record(z.string(), z.unknown()), z.boolean()])
  .meta({ description: 'A JSON Schema, as the MCP server sent it (true/false are schemas too)' });
const iso = z.string().meta({ format: 'date-time' });

export const typedFieldSchema = z
  .object({
    key: z.string(),
    label: z.string(),
    description: z.string().optional(),
    valueType: z.string().meta({ description: 'string, number, integer, boolean, object, array<…> or any' }),
    required: z.boolean(),
    enum: z.array(z.unknown()).optional(),
    default: z.unknown().optional(),
    schema: jsonSchema,
  })
  .meta({ id: 'TypedField' });

export const toolSchema = z
  .object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    usable: z.boolean(),
    unusableReason: z.string().optional(),
    inputs: z.array(typedFieldSchema),
    outputs: z.array(typedFieldSchema).optional(),
    inputSchema: jsonSchema,
    outputSchema: jsonSchema.optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'Tool' });

const serverInfo = z.object({ name: z.string(), version: z.string(), protocolVersion: z.string() });

const masked = z.record(z.string(), z.literal('***'));

export const toolsetAuthStateSchema = z
  .object({
    type: z.literal('oauth'),
    grant: z.enum(['authorization_code', 'client_credentials']),
    clientId: z.string().optional(),
    clientSecret: z.literal('***').optional(),
    tokenEndpointAuthMethod: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).optional(),
    privateKey: z.literal('***').optional(),
    signingAlgorithm: z.string().optional(),
    scopes: z.array(z.string()).optional(),
    perUser: z
      .boolean()
      .optional()
      .meta({ description: "Tokens per end user; state and expiresAt are then the toolset's own grant's (listing tools)" }),
    state: z
      .enum(['authorized', 'needs_authorization'])
      .meta({ description: 'needs_authorization: POST /toolsets/:id/authorize and open the URL (client credentials: obtained again)' }),
    expiresAt: iso.nullable().meta({ description: 'When the access token expires (renewed before it does)' }),
    reason: z.string().optional().meta({ description: 'Why a person must authorize (again)' }),
    requiredScope: z.string().optional().meta({ description: 'A larger scope the server asked for (step-up)' }),
  })
  .meta({ id: 'ToolsetAuthState' });

export const toolsetAuthorizationSchema = z.object({
  state: z.enum(['authorized', 'needs_authorization']),
  authorizationUrl: z.string().optional().meta({ description: 'Open it in a browser; absent for client credentials (already authorized)' }),
  expiresAt: iso.optional().meta({ description: 'The URL works once, until then' }),
});

export const oauthCallbackSchema = z.object({
  toolsetId: z.string(),
  state: z.literal('authorized'),
  toolCount: z.number().int().optional().meta({ description: "The toolset's own grant: its tools, listed with it" }),
  runId: z.string().optional().meta({ description: "An end user's grant (perUser toolset): the run that waited for it" }),
  runResumed: z
    .boolean()
    .optional()
    .meta({ description: 'true: the run is queued again; false: it no longer waited (canceled, or resumed already)' }),
});

const toolsetFields = {
  kind: z.enum(TARGET_KINDS),
  name: z.string(),
  url: z.string().optional().meta({ description: 'http toolsets' }),
  headers: masked.optional().meta({ description: 'http toolsets: header names; every value is shown as "***"' }),
  auth: toolsetAuthStateSchema.optional().meta({ description: 'OAuth toolsets' }),
  command: z.string().optional().meta({ description: 'stdio toolsets' }),
  args: z.array(z.string()).optional(),
  env: masked.optional().meta({ description: 'stdio toolsets: variable names; every value is shown as "***"' }),
  process: z.enum(['per-run', 'per-worker']).optional(),
  transport: z.enum(TRANSPORTS).meta({ description: 'The transport the server spoke at the last listing' }),
  requestedTransport: z.enum(REQUESTED_TRANSPORTS),
  protocolVersion: z.string().meta({ description: 'The MCP revision the server spoke at the last listing' }),
  timeoutMs: z.number().int().nullable(),
  serverInfo,
  toolCount: z.number().int(),
};

const healthFields = {
  ok: z.boolean(),
  checkedAt: iso,
  latencyMs: z.number(),
  protocolVersion: z.string().optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
};

export const toolsetHealthSchema = z.object(healthFields).meta({ id: 'ToolsetHealth' });

/** POST /toolsets/:id/check: the health just measured. */
export const toolsetCheckSchema = z.object({ ...healthFields, protocolVersion: z.string().nullable() });

export const toolsetSummarySchema = z
  .object({
    id: z.string(),
    ...toolsetFields,
    toolsRefreshedAt: iso,
    refreshIntervalMs: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The periodic refresh of the tool snapshot, in ms; null = on list_changed and by hand only' }),
    health: toolsetHealthSchema.nullable().meta({ description: 'The last health check; null before the first' }),
    createdAt: iso,
    updatedAt: iso,
    createdBy: z.string().nullable(),
    updatedBy: z.string().nullable(),
  })
  .meta({ id: 'ToolsetSummary' });

export const toolsetSchema = toolsetSummarySchema.extend({ tools: z.array(toolSchema) }).meta({ id: 'Toolset' });

export const toolsetPreviewSchema = z.object({ ...toolsetFields, tools: z.array(toolSchema) }).meta({ id: 'ToolsetPreview' });

export const toolsetRefreshSchema = z.object({
  toolset: toolsetSchema,
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
});

export const toolCallSchema = z
  .object({
    tool: z.string(),
    isError: z.boolean().meta({ description: "The tool's own failure (still a 200)" }),
    structuredContent: z.unknown().optional(),
    text: z.string(),
    content: z.array(z.looseObject({ type: z.string() })),
    transport: z.enum(TRANSPORTS),
    durationMs: z.number(),
  })
  .meta({ id: 'ToolCallResult' });

export const toolParams = z.object({ id: z.string(), tool: z.string().meta({ description: 'The tool name' }) });

const importItem = z.discriminatedUnion('status', [
  z.object({
    name: z.string(),
    status: z.enum(['created', 'valid']),
    toolsetId: z.string().optional(),
    kind: z.enum(TARGET_KINDS),
    transport: z.string(),
    toolCount: z.number().int(),
  }),
  z.object({
    name: z.string(),
    status: z.literal('failed'),
    reason: z.enum(['invalid', 'stdio-disabled', 'unreachable', 'auth-failed', 'not-mcp', 'timeout', 'blocked', 'forbidden', 'error']),
    code: z.string(),
    message: z.string(),
    errors: z.array(z.looseObject({ code: z.string(), message: z.string() })).optional(),
  }),
]);

export const toolsetImportSchema = z.object({
  dryRun: z.boolean(),
  created: z.number().int(),
  failed: z.number().int(),
  items: z.array(importItem),
});

export const toolsetChangeSchema = z
  .object({
    id: z.string(),
    at: iso,
    source: z
      .enum(['list_changed', 'refresh', 'scheduled'])
      .meta({ description: 'list_changed: a notification; refresh: POST /toolsets/:id/refresh; scheduled: the periodic refresh' }),
    added: z.array(z.string()),
    removed: z.array(z.string()),
    changed: z.array(z.string()),
  })
  .meta({ id: 'ToolsetChange' });

export const toolsetUsageSchema = z.object({
  toolsetId: z.string(),
  since: iso,
  until: iso,
  calls: z.number().int(),
  failed: z.number().int(),
  tools: z.array(
    z.object({
      tool: z.string(),
      calls: z.number().int(),
      errors: z.record(z.string(), z.number().int()).meta({ description: 'Failed calls by code' }),
      p50Ms: z.number(),
      p95Ms: z.number(),
    }),
  ),
});
