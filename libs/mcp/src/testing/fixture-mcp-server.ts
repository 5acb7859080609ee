/**
 * The MCP side of a fixture: a low-level SDK `Server` per session, serving declared tools with
 * raw JSON Schemas (McpServer would turn our tricky schemas into zod first), paging tools/list,
 * and counting tool calls and incoming notifications/cancelled.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationAnswer, McpContent } from '../types.js';

export interface FixtureToolContext {
  /** Aborted when the client sends notifications/cancelled (or the session closes). */
  signal: AbortSignal;
  /** Sends notifications/progress, when the caller asked for progress. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /**
   * Asks the client for input: an `elicitation/create` request on a session server; on the
   * stateless one an `input_required` result, the tool then running again with the answer.
   */
  elicit(message: string, requestedSchema: Record<string, unknown>): Promise<ElicitationAnswer>;
  /** Sends `notifications/tools/list_changed` on this session (after the tool changed the fixture's tool list). */
  toolsChanged(): Promise<void>;
  /** The request's `_meta` (e.g. the caller's idempotency key). */
  meta?: Record<string, unknown>;
}

export interface FixtureToolResult {
  content: McpContent[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface FixtureTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  handler(args: Record<string, unknown>, context: FixtureToolContext): FixtureToolResult | Promise<FixtureToolResult>;
}

export class FixtureCounters {
  readonly calls = new Map<string, number>();
  cancellations = 0;
  /** tools/list requests for a first page: whole listings (a paged one counts once). */
  listings = 0;
  /** The `callAuth` header of each tools/call, in order (undefined when absent). */
  readonly callHeaders: (string | undefined)[] = [];
  /** POSTs to the Streamable HTTP endpoint without a session id: an initialize, or a stateless client's probe. */
  sessionlessPosts = 0;
}

/** A header every tools/call must carry with one of `values` (listing stays open), like a per-user token. */
export interface CallAuth {
  header: string;
  values: string[];
}

export function createFixtureMcpServer(
  name: string,
  tools: FixtureTool[],
  pageSize: number | undefined,
  counters: FixtureCounters,
  callAuth?: CallAuth,
  beforeListing?: () => Promise<void>,
): Server {
  const server = new Server({ name, version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  // Read at each listing: a tool may add tools to the (shared) list, then announce it.
  const listedNow = () => tools.map(({ handler: _handler, ...tool }) => tool);

  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    if (request.params?.cursor === undefined) {
      counters.listings++;
      await beforeListing?.();
    }
    const listed = listedNow();
    if (pageSize === undefined) return { tools: listed };
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    if (!Number.isInteger(start) || start < 0) throw new McpError(ErrorCode.InvalidParams, `bad cursor ${request.params?.cursor}`);
    const end = start + pageSize;
    return { tools: listed.slice(start, end), ...(end < listed.length ? { nextCursor: String(end) } : {}) };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    counters.calls.set(tool.name, (counters.calls.get(tool.name) ?? 0) + 1);
    if (callAuth) {
      const given = extra.requestInfo?.headers[callAuth.header.toLowerCase()];
      const value = Array.isArray(given) ? given[0] : given;
      counters.callHeaders.push(value);
      if (value === undefined || !callAuth.values.includes(value))
        throw new McpError(ErrorCode.InvalidRequest, `${callAuth.header}: unknown user`);
    }
    const progressToken = request.params._meta?.progressToken;
    const result = await tool.handler(request.params.arguments ?? {}, {
      signal: extra.signal,
      progress: async (progress, total, message) => {
        if (progressToken === undefined) return;
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
      },
      elicit: async (message, requestedSchema) =>
        (await server.elicitInput(
          { message, requestedSchema: requestedSchema as never },
          { relatedRequestId: extra.requestId },
        )) as ElicitationAnswer,
      toolsChanged: () => server.sendToolListChanged(),
      ...(request.params._meta && { meta: request.params._meta }),
    });
    return { ...result };
  });
  return server;
}

/** Counts notifications/cancelled as they arrive; set before connect (the SDK chains handlers). */
export function countCancellations(transport: Transport, counters: FixtureCounters): void {
  transport.onmessage = (message) => {
    if ('method' in message && message.method === 'notifications/cancelled') counters.cancellations++;
  };
}

/**
 * Makes the server answer `initialize` with `version` (SDK v1 servers always answer with the
 * client's version when they know it): the fixture then stands for a server of that generation.
 */
export function pinProtocolVersion(transport: Transport, version: string | undefined): void {
  if (version === undefined) return;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const isInitializeResult = 'result' in message && typeof message.result.protocolVersion === 'string' && 'serverInfo' in message.result;
    return send(isInitializeResult ? { ...message, result: { ...message.result, protocolVersion: version } } : message, options);
  };
}
