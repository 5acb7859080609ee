import { pageQuerySchema } from '../common/pagination.js';
import { idParams, pageOf, type RouteDescription } from '../common/api-route.js';
import { createMcpServerBody, updateMcpServerBody } from './dto/mcp-server-requests.js';
import { mcpServerSchema } from './dto/mcp-server-responses.js';

/** How the /mcp-servers routes describe themselves in the OpenAPI document (`@ApiRoute(mcpServerRoutes.x)`). */
export const mcpServerRoutes = {
  create: {
    summary: 'Publish workflows as the tools of an MCP server at <base>/mcp/<id>',
    body: createMcpServerBody,
    responses: { 201: mcpServerSchema },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  list: {
    summary: 'List published MCP servers, newest first',
    query: pageQuerySchema,
    responses: { 200: pageOf(mcpServerSchema) },
    errors: { 400: ['VALIDATION_FAILED'] },
  },
  get: { summary: 'A published MCP server', params: idParams, responses: { 200: mcpServerSchema }, errors: { 404: ['NOT_FOUND'] } },
  update: {
    summary: 'Change a published MCP server (tools replaces the whole list)',
    params: idParams,
    body: updateMcpServerBody,
    responses: { 200: mcpServerSchema },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  remove: {
    summary: 'Stop publishing an MCP server',
    params: idParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'] },
  },
} satisfies Record<string, RouteDescription>;
