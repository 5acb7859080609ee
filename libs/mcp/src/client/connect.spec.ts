import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpError, McpErrorCode } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { waitUntil } from '../testing/test-helpers.js';

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: McpError) => error.code,
  );

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('connectMcp', () => {
  let plain: FixtureServer;
  let bearer: FixtureServer;
  let apiKey: FixtureServer;

  beforeAll(async () => {
    [plain, bearer, apiKey] = await Promise.all([
      startFixtureServer(),
      startFixtureServer({ auth: { header: 'authorization', value: 'Bearer s3cret' } }),
      startFixtureServer({ auth: { header: 'x-api-key', value: 'k-123' } }),
    ]);
  });
  afterAll(() => Promise.all([plain, bearer, apiKey].map((server) => server.close())));

  it('auto resolves Streamable HTTP, reports serverInfo, and close() ends the server session', async () => {
    const connection = await connectMcp({ url: plain.url });
    expect(connection.transport).toBe('streamable-http');
    expect(connection.serverInfo).toEqual({ name: 'mcpflow-fixture', version: '1.0.0', protocolVersion: '2025-11-25' });
    expect(plain.sessions()).toBe(1);
    await connection.close();
    await connection.close();
    expect(connection.closed).toBe(true);
    expect(plain.sessions()).toBe(0); // DELETE was awaited, not left to the server's timeout
  });

  it('auto falls back to legacy HTTP+SSE when Streamable HTTP answers 4xx', async () => {
    const connection = await connectMcp({ url: plain.sseUrl });
    expect(connection.transport).toBe('sse');
    expect((await connection.callTool('echo', { message: 'via sse' })).text).toBe('via sse');
    await connection.close();
  });

  it('honours a forced transport: no fallback', async () => {
    const error = await connectMcp({ url: plain.sseUrl, transport: 'streamable-http' }).catch((e: McpError) => e);
    expect(error).toMatchObject({ code: McpErrorCode.PROTOCOL_ERROR, status: 404 });
    const sse = await connectMcp({ url: plain.sseUrl, transport: 'sse' });
    expect(sse.transport).toBe('sse');
    await sse.close();
  });

  it('when every transport fails, the error carries every cause (stateless revision, Streamable HTTP, SSE)', async () => {
    const error = (await connectMcp({ url: plain.url.replace('/mcp', '/nothing-here') }).catch((e: unknown) => e)) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(McpErrorCode.PROTOCOL_ERROR);
    expect(error.causes).toHaveLength(3);
    expect(error.message).toMatch(/Streamable HTTP: .*HTTP 404.*legacy SSE: .*404/);
  });

  it.each([
    ['bearer', () => bearer, { authorization: 'Bearer s3cret' }, { authorization: 'Bearer wrong' }],
    ['API key', () => apiKey, { 'x-api-key': 'k-123' }, { 'x-api-key': 'nope' }],
  ])(
    'sends static %s headers; 401 without and 403 with a wrong one are MCP_AUTH_FAILED, not a fallback',
    async (_kind, server, good, bad) => {
      const connection = await connectMcp({ url: server().url, headers: good });
      expect((await connection.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
      await connection.close();
      expect(server().sessions()).toBe(0);

      await expect(connectMcp({ url: server().url })).rejects.toMatchObject({ code: McpErrorCode.AUTH_FAILED, status: 401 });
      await expect(connectMcp({ url: server().url, headers: bad })).rejects.toMatchObject({ code: McpErrorCode.AUTH_FAILED, status: 403 });
      await expect(connectMcp({ url: server().sseUrl, transport: 'sse' })).rejects.toMatchObject({
        code: McpErrorCode.AUTH_FAILED,
        status: 401,
      });
      const viaSse = await connectMcp({ url: server().sseUrl, transport: 'sse', headers: good });
      expect((await viaSse.callTool('echo', { message: 'ok' })).text).toBe('ok');
      await viaSse.close();
    },
  );

  it('gives up after connectTimeoutMs on a server that never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const started = Date.now();
    try {
      const error = await connectMcp({ url: `http://127.0.0.1:${port}/mcp`, connectTimeoutMs: 300 }).catch((e: McpError) => e);
      expect(error).toMatchObject({ code: McpErrorCode.UNREACHABLE, message: expect.stringContaining('no MCP handshake within') });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('retries a refused connection with backoff: a server that comes up meanwhile is reached', async () => {
    const port = await freePort();
    const connecting = connectMcp({ url: `http://127.0.0.1:${port}/mcp` });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const late = await startFixtureServer({ port });
    try {
      const connection = await connecting;
      expect(connection.transport).toBe('streamable-http');
      await connection.close();
    } finally {
      await late.close();
    }
  });

  it('reports a server that stays down as MCP_UNREACHABLE, and a bad URL without touching the network', async () => {
    const port = await freePort();
    await expect(connectMcp({ url: `http://127.0.0.1:${port}/mcp`, connectTimeoutMs: 500 })).rejects.toMatchObject({
      code: McpErrorCode.UNREACHABLE,
    });
    expect(await codeOf(connectMcp({ url: 'ftp://example.invalid/mcp' }))).toBe(McpErrorCode.UNREACHABLE);
    expect(await codeOf(connectMcp({ url: 'not a url' }))).toBe(McpErrorCode.UNREACHABLE);
  });

  it('stops connecting when the signal aborts', async () => {
    const controller = new AbortController();
    controller.abort();
    expect(await codeOf(connectMcp({ url: plain.url }, { signal: controller.signal }))).toBe(McpErrorCode.CANCELED);
    expect(plain.sessions()).toBe(0);
  });

  it('terminates the server session when a handshake is abandoned half-way', async () => {
    let posts = 0;
    // Stalls the second POST (notifications/initialized): initialize has opened a session by then.
    const stallSecondPost: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && ++posts === 2) await new Promise((resolve) => setTimeout(resolve, 300));
      return fetch(input, init);
    };
    const controller = new AbortController();
    // The remembered session revision goes first, so the second POST is notifications/initialized.
    const connecting = connectMcp({ url: plain.url, fetch: stallSecondPost, protocolVersion: '2025-11-25' }, { signal: controller.signal });
    await waitUntil(() => posts === 2, 2_000, 'the initialized notification');
    expect(plain.sessions()).toBe(1);
    controller.abort();
    await expect(connecting).rejects.toMatchObject({ code: McpErrorCode.CANCELED });
    expect(plain.sessions()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 350)); // let the stalled request settle
  });

  it('sends every request through the given fetch (target or options)', async () => {
    const methods: string[] = [];
    const spy: typeof fetch = (input, init) => {
      methods.push(init?.method ?? 'GET');
      return fetch(input, init);
    };
    const viaTarget = await connectMcp({ url: plain.url, fetch: spy });
    await viaTarget.callTool('echo', { message: 'x' });
    await viaTarget.close();
    expect(methods).toEqual(expect.arrayContaining(['POST', 'DELETE']));

    methods.length = 0;
    const viaOptions = await connectMcp({ url: plain.sseUrl, transport: 'sse' }, { fetch: spy });
    await viaOptions.close();
    expect(methods).toContain('POST');
  });
});
