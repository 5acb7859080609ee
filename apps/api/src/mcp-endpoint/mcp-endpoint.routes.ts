import { z } from 'zod';
import { errorBody, idParams, serverSentEvent, type RouteDescription } from '../common/api-route.js';

/**
 * How the MCP protocol endpoints describe themselves in the OpenAPI document. They speak JSON-RPC
 * (MCP), not REST: the bodies are MCP messages and the errors JSON-RPC errors, as MCP clients expect.
 */

const message = z.looseObject({ jsonrpc: z.literal('2.0') }).meta({ description: 'A JSON-RPC 2.0 message of the MCP protocol' });
const jsonRpcError = z
  .object({ jsonrpc: z.literal('2.0'), error: z.object({ code: z.number(), message: z.string() }), id: z.null() })
  .meta({ id: 'JsonRpcError' });
const refusals = { 401: jsonRpcError, 403: jsonRpcError, 404: jsonRpcError, 429: jsonRpcError } as const;
/** A body that is not JSON at all is refused by the API's JSON parser, before MCP: the API's error body. */
const badMessage = z.union([jsonRpcError, errorBody(400, ['MALFORMED_JSON'])]);
const mcpAnswer = { description: 'The MCP answer: JSON, or an SSE stream of JSON-RPC messages', schema: message };
const events = { description: 'Server-sent JSON-RPC messages', contentType: 'text/event-stream', schema: serverSentEvent };

const keyInPathParams = idParams.extend({
  key: z.string().meta({ description: 'An API key (only with MCP_KEY_IN_PATH=on; weaker than the Authorization header)' }),
});
const keyInPath = ' — the API key in the path (MCP_KEY_IN_PATH=on, else 404)';

export const mcpEndpointRoutes = {
  streamableHttp: {
    summary: 'MCP Streamable HTTP (every revision: 2026-07-28 stateless and 2025-*)',
    tags: ['mcp'],
    methods: ['post', 'get', 'delete'],
    params: idParams,
    responses: {
      200: mcpAnswer,
      202: { description: 'A notification or response accepted' },
      204: { description: 'The session ended (DELETE)' },
    },
    errors: { 400: badMessage, ...refusals, 405: jsonRpcError, 406: jsonRpcError, 415: jsonRpcError, 500: jsonRpcError },
  },
  sseStream: {
    summary: 'MCP legacy HTTP+SSE (2024-11-05): the event stream',
    tags: ['mcp'],
    params: idParams,
    responses: { 200: events },
    errors: { ...refusals, 500: jsonRpcError },
  },
  sseMessage: {
    summary: 'MCP legacy HTTP+SSE (2024-11-05): a client message (?sessionId= from the stream)',
    tags: ['mcp'],
    params: idParams,
    query: z.object({ sessionId: z.string() }),
    body: message,
    responses: { 202: { description: 'Accepted: the answer comes on the event stream' } },
    errors: { 400: badMessage, ...refusals, 500: jsonRpcError },
  },
} satisfies Record<string, RouteDescription>;

export const mcpEndpointKeyInPathRoutes = {
  streamableHttpKeyInPath: {
    ...mcpEndpointRoutes.streamableHttp,
    summary: mcpEndpointRoutes.streamableHttp.summary + keyInPath,
    params: keyInPathParams,
  },
  sseStreamKeyInPath: { ...mcpEndpointRoutes.sseStream, summary: mcpEndpointRoutes.sseStream.summary + keyInPath, params: keyInPathParams },
  sseMessageKeyInPath: {
    ...mcpEndpointRoutes.sseMessage,
    summary: mcpEndpointRoutes.sseMessage.summary + keyInPath,
    params: keyInPathParams,
  },
} satisfies Record<string, RouteDescription>;
