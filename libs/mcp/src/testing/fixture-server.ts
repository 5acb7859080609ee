/**
 * A real MCP server for tests, in-process on 127.0.0.1 (port 0): Streamable HTTP at `/mcp` and
 * legacy HTTP+SSE at `/sse` (+ `/messages`), both speaking the same tools. It counts what a test
 * needs to prove (live sessions, calls per tool, cancellations) and can restart, losing every
 * session like a real restart. Reused by the API and worker e2e tests:
 *
 *   const server = await startFixtureServer({ tools: basicTools(), auth: { header: 'authorization', value: 'Bearer t' } });
 *   … connect to server.url (or server.sseUrl) …
 *   expect(server.sessions()).toBe(0);
 *   await server.close();
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { basicTools } from './fixture-tools.js';
import {
  countCancellations,
  createFixtureMcpServer,
  pinProtocolVersion,
  type CallAuth,
  FixtureCounters,
  type FixtureTool,
} from './fixture-mcp-server.js';

export interface FixtureServerOptions {
  /** Defaults to basicTools(). */
  tools?: FixtureTool[];
  /** Page tools/list by this many tools (follow nextCursor). */
  pageSize?: number;
  /** Required header: missing → 401, wrong value → 403. E.g. `{ header: 'x-api-key', value: 'k' }`. */
  auth?: { header: string; value: string };
  /** Status for an unknown session id: 404 (SDK servers, the spec) or 400 (server-everything). */
  staleSessionStatus?: 400 | 404;
  name?: string;
  /**
   * The revision the server answers `initialize` with (default: SDK v1's latest, 2025-11-25), to
   * stand for a server of that generation: e.g. '2024-11-05' with `sseUrl`, '2025-03-26' with `url`.
   */
  protocolVersion?: string;
  /** Every tools/call must carry this header with one of the values (a per-user token); listing does not. */
  callAuth?: CallAuth;
  /** Listen on this port instead of a free one. */
  port?: number;
  /** Awaited before each whole listing is answered: a test can hold a listing in flight. */
  beforeListing?: () => Promise<void>;
}

export interface FixtureServer {
  /** Streamable HTTP endpoint. */
  url: string;
  /** Legacy HTTP+SSE endpoint. */
  sseUrl: string;
  /** Live sessions, both transports. */
  sessions(): number;
  /** tools/call requests received, for one tool or all. */
  calls(tool?: string): number;
  /** notifications/cancelled received. */
  cancellations(): number;
  /** Whole tool listings served (tools/list without a cursor), both transports. */
  listings(): number;
  /** The `callAuth` header value of each tools/call received, in order. */
  callHeaders(): (string | undefined)[];
  /**
   * POSTs without a session id at the Streamable HTTP endpoint: one per session opened, plus one
   * per refused attempt of a client that tried the stateless revision (`server/discover`) first.
   */
  sessionlessPosts(): number;
  /** The value of one header on every HTTP request received (undefined where absent), in order. */
  requestHeaders(name: string): (string | undefined)[];
  /** Drops every connection and session, stays down `downtimeMs` (connections refused), then listens again on the same port. */
  restart(downtimeMs?: number): Promise<void>;
  close(): Promise<void>;
}

interface LiveSession {
  server: Server;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
}

export async function startFixtureServer(options: FixtureServerOptions = {}): Promise<FixtureServer> {
  const tools = options.tools ?? basicTools();
  const counters = new FixtureCounters();
  const live = new Map<string, LiveSession>();
  const staleStatus = options.staleSessionStatus ?? 404;
  const newMcpServer = () =>
    createFixtureMcpServer(options.name ?? 'mcpflow-fixture', tools, options.pageSize, counters, options.callAuth, options.beforeListing);

  const track = (id: string, server: Server, transport: LiveSession['transport']) => {
    live.set(id, { server, transport });
    server.onclose = () => live.delete(id);
  };

  const streamable = async (req: IncomingMessage, res: ServerResponse) => {
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const session = live.get(sessionId);
      if (!session || !(session.transport instanceof StreamableHTTPServerTransport)) return reply(res, staleStatus, 'Session not found');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'Mcp-Session-Id header is required');
    counters.sessionlessPosts += 1;
    const server = newMcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => track(id, server, transport),
    });
    countCancellations(transport, counters);
    pinProtocolVersion(transport, options.protocolVersion);
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const sse = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method === 'GET' && url.pathname === '/sse') {
      const server = newMcpServer();
      const transport = new SSEServerTransport('/messages', res);
      countCancellations(transport, counters);
      pinProtocolVersion(transport, options.protocolVersion);
      track(transport.sessionId, server, transport);
      return server.connect(transport);
    }
    const session = live.get(url.searchParams.get('sessionId') ?? '');
    if (req.method !== 'POST' || !session || !(session.transport instanceof SSEServerTransport))
      return reply(res, staleStatus, 'Session not found');
    return session.transport.handlePostMessage(req, res);
  };

  const received: IncomingMessage['headers'][] = [];
  const http = createServer((req, res) => {
    received.push(req.headers);
    const url = new URL(req.url ?? '/', 'http://fixture');
    if (options.auth) {
      const given = req.headers[options.auth.header.toLowerCase()];
      if (given === undefined) return reply(res, 401, 'credentials required');
      if (given !== options.auth.value) return reply(res, 403, 'credentials refused');
    }
    const route =
      url.pathname === '/mcp'
        ? streamable(req, res)
        : url.pathname === '/sse' || url.pathname === '/messages'
          ? sse(req, res, url)
          : reply(res, 404, 'not found');
    Promise.resolve(route).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error));
    });
  });

  const port = await listen(http, options.port ?? 0);
  const base = `http://127.0.0.1:${port}`;

  const dropEverything = async () => {
    const closed = new Promise<void>((resolve) => http.close(() => resolve()));
    http.closeAllConnections();
    await Promise.all([...live.values()].map(({ server }) => server.close().catch(() => undefined)));
    live.clear();
    await closed;
  };

  return {
    url: `${base}/mcp`,
    sseUrl: `${base}/sse`,
    sessions: () => live.size,
    calls: (tool) => (tool === undefined ? [...counters.calls.values()].reduce((a, b) => a + b, 0) : (counters.calls.get(tool) ?? 0)),
    cancellations: () => counters.cancellations,
    listings: () => counters.listings,
    callHeaders: () => [...counters.callHeaders],
    sessionlessPosts: () => counters.sessionlessPosts,
    requestHeaders: (name) =>
      received.map((headers) => headers[name.toLowerCase()]).map((value) => (Array.isArray(value) ? value.join(', ') : value)),
    restart: async (downtimeMs = 0) => {
      await dropEverything();
      if (downtimeMs > 0) await new Promise((resolve) => setTimeout(resolve, downtimeMs));
      await listen(http, port);
    },
    close: dropEverything,
  };
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
