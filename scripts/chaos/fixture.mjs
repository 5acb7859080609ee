#!/usr/bin/env node
// Counting MCP server for the chaos harness: Streamable HTTP (stateful sessions) on 127.0.0.1,
// built on @modelcontextprotocol/sdk v1 taken from the checkout's node_modules.
//
//   node fixture.mjs --checkout <mcpflow checkout> --port <port> --effects <file.jsonl>
//
// Tools:
//   effect({key})  appends {"key","at","atMs","pid","session"} to the effects file (fsync'd before the
//                  answer), answers "ok:<key>". The file is append-only, so counts survive restarts.
//   slow({ms})     sleeps ms (at most 60 s), answers "slept:<ms>".
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i > 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback === undefined) {
    console.error(`fixture: --${name} is required`);
    process.exit(2);
  }
  return fallback;
}

const checkout = path.resolve(arg('checkout'));
const port = Number(arg('port'));
const effectsFile = path.resolve(arg('effects'));
const host = arg('host', '127.0.0.1');

const requireFromCheckout = createRequire(path.join(checkout, 'package.json'));
const { Server } = requireFromCheckout('@modelcontextprotocol/sdk/server/index.js');
const { StreamableHTTPServerTransport } = requireFromCheckout('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { CallToolRequestSchema, ListToolsRequestSchema, ErrorCode, McpError } = requireFromCheckout('@modelcontextprotocol/sdk/types.js');

const effectsFd = fs.openSync(effectsFile, 'a');
const counts = { effect: 0, slow: 0, sessions: 0 };

const TOOLS = [
  {
    name: 'effect',
    description: 'Records a side effect under a key (append-only, fsync) and answers ok:<key>',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false },
  },
  {
    name: 'slow',
    description: 'Sleeps ms milliseconds, then answers',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: 60000 } },
      required: ['ms'],
      additionalProperties: false,
    },
  },
];

function newMcpServer(sessionRef) {
  const server = new Server({ name: 'chaos-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    if (name === 'effect') {
      const key = String(args.key ?? '');
      const now = Date.now();
      const line =
        JSON.stringify({ key, at: new Date(now).toISOString(), atMs: now, pid: process.pid, session: sessionRef.id ?? null }) + '\n';
      fs.writeSync(effectsFd, line);
      fs.fsyncSync(effectsFd);
      counts.effect += 1;
      return { content: [{ type: 'text', text: `ok:${key}` }] };
    }
    if (name === 'slow') {
      const ms = Math.max(0, Math.min(60000, Number(args.ms) || 0));
      counts.slow += 1;
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        extra?.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: `slept:${ms}` }] };
    }
    throw new McpError(ErrorCode.InvalidParams, `unknown tool ${name}`);
  });
  return server;
}

const live = new Map(); // session id -> { server, transport }

function reply(res, status, message) {
  if (res.headersSent) return res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function handle(req, res) {
  const url = new URL(req.url ?? '/', 'http://fixture');
  if (url.pathname === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ ok: true, pid: process.pid, sessions: live.size, ...counts }));
  }
  if (url.pathname !== '/mcp') return reply(res, 404, 'not found');
  const sessionId = req.headers['mcp-session-id'];
  if (typeof sessionId === 'string') {
    const session = live.get(sessionId);
    if (!session) return reply(res, 404, 'Session not found');
    return session.transport.handleRequest(req, res);
  }
  if (req.method !== 'POST') return reply(res, 400, 'Mcp-Session-Id header is required');
  const sessionRef = { id: undefined };
  const server = newMcpServer(sessionRef);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    onsessioninitialized: (id) => {
      sessionRef.id = id;
      counts.sessions += 1;
      live.set(id, { server, transport });
    },
  });
  transport.onclose = () => {
    if (sessionRef.id) live.delete(sessionRef.id);
  };
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => {
  handle(req, res).catch((error) => reply(res, 500, error instanceof Error ? error.message : String(error)));
});
http.listen(port, host, () => {
  console.log(`chaos fixture pid ${process.pid} listening on http://${host}:${port}/mcp, effects in ${effectsFile}`);
});
http.on('error', (error) => {
  console.error(`fixture: ${error.message}`);
  process.exit(1);
});

const stop = () => {
  http.closeAllConnections?.();
  http.close();
  try {
    fs.closeSync(effectsFd);
  } catch {
    /* already closed */
  }
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
