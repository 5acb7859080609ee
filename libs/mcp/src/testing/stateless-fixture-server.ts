/**
 * A real 2026-07-28 (stateless) MCP server for tests, written with SDK v2: `createMcpHandler`
 * with `legacy: 'reject'`, so a 2025 client (`initialize`) is refused and only the modern revision
 * works. In-process on 127.0.0.1 (port 0), endpoint `/mcp`. It counts what a test proves about
 * statelessness: requests per method, session ids and DELETEs received (both must stay 0).
 *
 *   const server = await startStatelessFixtureServer({ tools: basicTools() });
 *   … connect to server.url …
 *   expect(server.requests('server/discover')).toBe(1);
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, inputRequired, ProtocolError, ProtocolErrorCode, Server } from '@modelcontextprotocol/server';
import type { ElicitationAnswer } from '../types.js';
import { basicTools } from './fixture-tools.js';
import type { FixtureTool } from './fixture-mcp-server.js';

const FORM = 'form';

/** A tool asked for input it does not have yet: the call answers `input_required`. */
class NeedsInput extends Error {
  constructor(
    message: string,
    readonly requestedSchema: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface StatelessFixtureServerOptions {
  /** Defaults to basicTools(). */
  tools?: FixtureTool[];
  /** Required header: missing → 401, wrong value → 403. */
  auth?: { header: string; value: string };
  name?: string;
  /** Listen on this port instead of a free one (e.g. to replace an older server at the same URL). */
  port?: number;
}

export interface StatelessFixtureServer {
  url: string;
  /** JSON-RPC requests received, for one method or all (`server/discover`, `tools/call`…). */
  requests(method?: string): number;
  /** tools/call requests received, for one tool or all. */
  calls(tool?: string): number;
  /** HTTP requests that carried an `Mcp-Session-Id` header, and DELETE requests: a stateless client sends neither. */
  sessionTraffic(): { withSessionId: number; deletes: number };
  close(): Promise<void>;
}

export async function startStatelessFixtureServer(options: StatelessFixtureServerOptions = {}): Promise<StatelessFixtureServer> {
  const tools = options.tools ?? basicTools();
  const byMethod = new Map<string, number>();
  const calls = new Map<string, number>();
  const traffic = { withSessionId: 0, deletes: 0 };
  const listed = tools.map(({ handler: _handler, ...tool }) => tool);

  const buildServer = () => {
    const server = new Server({ name: options.name ?? 'mcpflow-stateless-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
    // Our fixture tools carry raw JSON Schemas and content blocks; the SDK's static types are narrower.
    server.setRequestHandler('tools/list', () => ({ tools: listed }) as never);
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const tool = tools.find((candidate) => candidate.name === request.params.name);
      if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      calls.set(tool.name, (calls.get(tool.name) ?? 0) + 1);
      const answered = ctx.mcpReq.inputResponses?.[FORM] as ElicitationAnswer | undefined;
      const elicit = (message: string, requestedSchema: Record<string, unknown>) =>
        answered ? Promise.resolve(answered) : Promise.reject(new NeedsInput(message, requestedSchema));
      try {
        const result = await tool.handler(request.params.arguments ?? {}, {
          signal: ctx.mcpReq.signal,
          progress: () => Promise.resolve(),
          elicit,
          // No session to notify on the stateless revision: clients find changes by listing.
          toolsChanged: () => Promise.resolve(),
        });
        return { ...result } as never;
      } catch (error) {
        if (!(error instanceof NeedsInput)) throw error;
        // Nothing is held open: the client answers and sends the call again with inputResponses.
        return inputRequired({
          inputRequests: { [FORM]: inputRequired.elicit({ message: error.message, requestedSchema: error.requestedSchema as never }) },
        });
      }
    });
    return server;
  };
  const handler = createMcpHandler(buildServer, { legacy: 'reject' });

  const http = createServer((req, res) => {
    serve(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : String(error));
    });
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.headers['mcp-session-id'] !== undefined) traffic.withSessionId++;
    if (req.method === 'DELETE') traffic.deletes++;
    if (options.auth) {
      const given = req.headers[options.auth.header.toLowerCase()];
      if (given === undefined || given !== options.auth.value) {
        res.writeHead(given === undefined ? 401 : 403, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: given === undefined ? 'credentials required' : 'credentials refused' }));
        return;
      }
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    countMethods(body, byMethod);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'DELETE';
    const response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, body: hasBody ? body : undefined }),
    );
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  }

  const port = await new Promise<number>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve((http.address() as AddressInfo).port));
  });
  const sum = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests: (method) => (method === undefined ? sum(byMethod) : (byMethod.get(method) ?? 0)),
    calls: (tool) => (tool === undefined ? sum(calls) : (calls.get(tool) ?? 0)),
    sessionTraffic: () => ({ ...traffic }),
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

function countMethods(body: Buffer, byMethod: Map<string, number>): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return;
  }
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    const method = typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined;
    if (typeof method === 'string') byMethod.set(method, (byMethod.get(method) ?? 0) + 1);
  }
}
