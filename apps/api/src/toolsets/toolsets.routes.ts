import { z } from 'zod';
import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, type RouteDescription } from '../common/api-route.js';
import { importToolsetsBody, importToolsetsQuery } from './dto/toolset-import.js';
import { usageQuery } from './toolset-usage.js';
import { callToolBody, createHttpToolsetBody, createStdioToolsetBody, updateToolsetBody } from './dto/toolset-requests.js';
import {
  toolCallSchema,
  toolParams,
  toolsetAuthorizationSchema,
  toolsetChangeSchema,
  toolsetCheckSchema,
  toolsetImportSchema,
  toolsetPreviewSchema,
  toolsetRefreshSchema,
  toolsetSchema,
  toolsetSummarySchema,
  toolsetUsageSchema,
} from './dto/toolset-responses.js';

/** How the /toolsets routes describe themselves in the OpenAPI document (`@ApiRoute(toolsetRoutes.x)`). */

/** A body with `command` is a local (stdio) server, any other a server by URL. */
const createBody = z.union([createHttpToolsetBody, createStdioToolsetBody]);
const CONNECT_ERRORS = ['MCP_UNREACHABLE', 'MCP_AUTH_FAILED', 'MCP_PROTOCOL_ERROR', 'MCP_TIMEOUT', 'OUTBOUND_BLOCKED'] as const;
/** A stdio toolset: the key is not `admin`, or the operator does not run local servers (that command). */
const STDIO_GATE = ['STDIO_ADMIN_REQUIRED', 'STDIO_DISABLED', 'STDIO_COMMAND_NOT_ALLOWED'] as const;

export const toolsetRoutes = {
  create: {
    summary: 'Register an MCP server: connect, list every tool, store the snapshot',
    body: createBody,
    responses: { 201: toolsetSchema },
    errors: { 400: ['VALIDATION_FAILED'], 403: STDIO_GATE, 422: CONNECT_ERRORS },
  },
  preview: {
    summary: 'List the tools of an MCP server without saving anything',
    body: createBody,
    responses: { 200: toolsetPreviewSchema },
    errors: { 400: ['VALIDATION_FAILED'], 403: STDIO_GATE, 422: CONNECT_ERRORS },
  },
  import: {
    summary: 'Register every server of an mcpServers (Claude Desktop, Cursor) or servers (VS Code) file; each entry answered',
    query: importToolsetsQuery,
    body: importToolsetsBody,
    responses: { 200: toolsetImportSchema },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  authorize: {
    summary: 'OAuth toolsets: the URL a person opens to authorize (client credentials: a new token at once)',
    params: idParams,
    responses: { 200: toolsetAuthorizationSchema },
    errors: { 404: ['NOT_FOUND'], 409: ['TOOLSET_NOT_OAUTH'], 422: CONNECT_ERRORS },
  },
  check: {
    summary: 'Check that the server answers now (stored as the toolset health; the tool snapshot is unchanged)',
    params: idParams,
    responses: { 200: toolsetCheckSchema },
    errors: { 403: STDIO_GATE, 404: ['NOT_FOUND'] },
  },
  changes: {
    summary: "The toolset's tool-list changes (list_changed notifications and refreshes), newest first",
    params: idParams,
    query: pageQuerySchema,
    responses: { 200: pageOf(toolsetChangeSchema) },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  usage: {
    summary: 'Calls of each tool since a time: count, failures by code, p50/p95 duration',
    params: idParams,
    query: usageQuery,
    responses: { 200: toolsetUsageSchema },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  list: {
    summary: 'List toolsets (newest first, summaries without tools)',
    query: pageQuerySchema,
    responses: { 200: pageOf(toolsetSummarySchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: {
    summary: 'A toolset with every tool',
    params: idParams,
    responses: { 200: toolsetSchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  update: {
    summary: 'Change a toolset (a new url, headers, transport or OAuth settings lists the tools again first)',
    params: idParams,
    body: updateToolsetBody,
    responses: { 200: toolsetSchema },
    errors: { 400: ['VALIDATION_FAILED'], 403: STDIO_GATE, 404: ['NOT_FOUND'], 409: ['TOOLSET_CHANGED'], 422: CONNECT_ERRORS },
  },
  refresh: {
    summary: 'Take a new snapshot of the tools and say what changed',
    params: idParams,
    responses: { 200: toolsetRefreshSchema },
    errors: { 403: STDIO_GATE, 404: ['NOT_FOUND'], 409: ['TOOLSET_CHANGED'], 422: CONNECT_ERRORS },
  },
  remove: {
    summary: "Delete a toolset (refused while a workflow's latest version uses it)",
    params: idParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'], 409: ['TOOLSET_IN_USE'] },
  },
  call: {
    summary: 'Call one tool ad hoc (arguments checked against its inputSchema first)',
    params: toolParams,
    body: callToolBody,
    responses: { 200: toolCallSchema },
    errors: {
      400: ['VALIDATION_FAILED', 'MCP_INPUT_INVALID'],
      403: STDIO_GATE,
      404: ['NOT_FOUND'],
      422: [...CONNECT_ERRORS, 'TOOL_UNUSABLE'],
    },
  },
} satisfies Record<string, RouteDescription>;
