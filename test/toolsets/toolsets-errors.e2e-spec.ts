import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { freePort } from '../support/services.js';
import { startLoggedApi, type LoggedApi } from '../support/toolsets.js';

interface ErrorBody {
  statusCode: number;
  code: string;
  message: string;
  requestId: string;
  errors?: { path: string; code: string; message: string; transport?: string }[];
}

/** A loopback HTTP server that answers every request with `answer` and counts what it got. */
async function plainServer(answer: (res: import('node:http').ServerResponse) => void) {
  const received: { url: string; headers: import('node:http').IncomingHttpHeaders }[] = [];
  const server: Server = createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('toolsets: errors (SPEC §2, §6)', () => {
  let stack: LoggedApi;
  let notFound: Awaited<ReturnType<typeof plainServer>>;
  let html: Awaited<ReturnType<typeof plainServer>>;
  let elsewhere: Awaited<ReturnType<typeof plainServer>>;
  let redirector: Awaited<ReturnType<typeof plainServer>>;

  beforeAll(async () => {
    stack = await startLoggedApi({ BODY_LIMIT_BYTES: '4096' });
    notFound = await plainServer((res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page'));
    html = await plainServer((res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>'));
    elsewhere = await plainServer((res) => res.writeHead(200).end('{}'));
    redirector = await plainServer((res) => res.writeHead(307, { location: `${elsewhere.origin}/mcp` }).end());
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), notFound?.close(), html?.close(), elsewhere?.close(), redirector?.close()]);
  });

  const create = (body: unknown, headers?: Record<string, string>) => api<ErrorBody>(stack.url, 'POST', '/toolsets', body, headers);

  it('400 for a malformed URL, with the path', async () => {
    for (const url of ['not a url', 'ftp://example.com/mcp', 'file:///etc/passwd', 'http://user:secret@127.0.0.1/mcp', '']) {
      const res = await create({ url });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors?.map((error) => error.path)).toEqual(['/url']);
    }
    const missing = await create({});
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: '/url' })]);
  });

  it('400 for unknown fields and bad values, each with its path', async () => {
    const res = await create({
      url: 'http://127.0.0.1:1/mcp',
      transport: 'websocket',
      timeoutMs: 'soon',
      headers: { 'bad name': 'x', 'x-ok': 'a\r\nb', Host: 'h' },
      extra: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors?.map((error) => [error.path, error.code]).sort()).toEqual(
      [
        ['/extra', 'UNKNOWN_FIELD'],
        ['/headers/Host', 'CUSTOM'],
        ['/headers/bad name', 'CUSTOM'],
        ['/headers/x-ok', 'INVALID_FORMAT'],
        ['/timeoutMs', 'INVALID_TYPE'],
        ['/transport', 'INVALID_VALUE'],
      ].sort(),
    );
    const notJson = await create('{"url": ');
    expect(notJson.status).toBe(400);
  });

  it('413 for a body over the limit', async () => {
    const res = await create({ url: 'http://127.0.0.1:1/mcp', headers: { 'x-big': 'x'.repeat(5000) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('BODY_TOO_LARGE');
  });

  it('422 MCP_UNREACHABLE when nothing listens', async () => {
    const res = await create({ url: `http://127.0.0.1:${await freePort()}/mcp` });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('MCP_UNREACHABLE');
    expect(res.body.errors?.[0]).toMatchObject({ path: '/url', code: 'MCP_UNREACHABLE', message: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('422 MCP_PROTOCOL_ERROR with every cause when auto tried the stateless revision, Streamable HTTP and SSE', async () => {
    const res = await create({ url: `${notFound.origin}/mcp` });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('MCP_PROTOCOL_ERROR');
    expect(res.body.message).toMatch(/2026-07-28.*Streamable HTTP.*SSE/);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        path: '/url',
        transport: 'streamable-http',
        protocolVersion: '2026-07-28',
        message: expect.stringContaining('404'),
      }),
      expect.objectContaining({ path: '/url', transport: 'streamable-http', message: expect.stringContaining('404') }),
      expect.objectContaining({ path: '/url', transport: 'sse', message: expect.stringContaining('404') }),
    ]);
    // Forced Streamable HTTP still tries both revisions that run over it; forced SSE tries one thing.
    const forced = await create({ url: `${notFound.origin}/mcp`, transport: 'streamable-http' });
    expect(forced.status).toBe(422);
    expect(forced.body.errors).toHaveLength(2);
    const sseOnly = await create({ url: `${notFound.origin}/mcp`, transport: 'sse' });
    expect(sseOnly.body.errors).toHaveLength(1);
  });

  it('422 MCP_PROTOCOL_ERROR for a web page that is not an MCP server', async () => {
    const res = await create({ url: `${html.origin}/`, transport: 'streamable-http' });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('MCP_PROTOCOL_ERROR');
  });

  it('422 OUTBOUND_BLOCKED for cloud metadata addresses, without connecting', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/mcp',
      'http://metadata.google.internal/mcp',
      'http://[::ffff:169.254.169.254]/',
    ]) {
      const started = Date.now();
      const res = await create({ url });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe('OUTBOUND_BLOCKED');
      expect(res.body.errors?.[0]).toMatchObject({ path: '/url', code: 'OUTBOUND_BLOCKED' });
      expect(Date.now() - started).toBeLessThan(1000);
    }
  });

  it('does not follow a redirect to another host: the other host never sees the request or its credential', async () => {
    const res = await create({
      url: `${redirector.origin}/mcp`,
      transport: 'streamable-http',
      headers: { authorization: 'Bearer never-forwarded' },
    });
    expect(res.status).toBe(422);
    expect(redirector.received.length).toBeGreaterThan(0);
    expect(redirector.received[0].headers.authorization).toBe('Bearer never-forwarded');
    expect(elsewhere.received).toHaveLength(0);
  });
});

describe('toolsets: outbound lock-down with OUTBOUND_DENY / OUTBOUND_ALLOW', () => {
  let locked: LoggedApi;
  let reopened: LoggedApi;
  let fixture: FixtureServer;

  beforeAll(async () => {
    [locked, reopened, fixture] = await Promise.all([
      startLoggedApi({ OUTBOUND_DENY: 'private' }),
      startLoggedApi({ OUTBOUND_DENY: 'private', OUTBOUND_ALLOW: 'localhost' }),
      startFixtureServer(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([locked?.close(), reopened?.close(), fixture?.close()]);
  });

  it('refuses loopback addresses once private networks are denied, also behind a hostname (checked after DNS)', async () => {
    const literal = await api<ErrorBody>(locked.url, 'POST', '/toolsets', { url: fixture.url });
    expect(literal.status).toBe(422);
    expect(literal.body.code).toBe('OUTBOUND_BLOCKED');
    expect(literal.body.message).toMatch(/127\.0\.0\.1 is denied by OUTBOUND_DENY/);
    const named = await api<ErrorBody>(locked.url, 'POST', '/toolsets', { url: fixture.url.replace('127.0.0.1', 'localhost') });
    expect(named.status).toBe(422);
    expect(named.body.code).toBe('OUTBOUND_BLOCKED');
    expect(named.body.message).toMatch(/localhost resolves to 127\.0\.0\.1, denied by OUTBOUND_DENY/);
    expect(fixture.sessions()).toBe(0);
    expect(fixture.calls()).toBe(0);
  });

  it('lets an allowed hostname through although it resolves to a denied address; the address itself stays denied', async () => {
    const res = await api<{ toolCount: number }>(reopened.url, 'POST', '/toolsets', { url: fixture.url.replace('127.0.0.1', 'localhost') });
    expect(res.status).toBe(201);
    expect(res.body.toolCount).toBeGreaterThan(0);
    expect((await api(reopened.url, 'POST', '/toolsets', { url: fixture.url })).status).toBe(422);
  });
});
