import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpErrorCode } from '../errors.js';
import { findOutboundBlock } from '../outbound/errors.js';
import { createOutboundFetch } from '../outbound/outbound-fetch.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import type { FetchFunction, McpHttpTarget } from '../types.js';
import { terminateSession } from './terminate-session.js';

/**
 * A session whose client is gone without a DELETE — as a SIGKILLed worker leaves it — is
 * simulated by a live connection whose session id is taken and ended from outside; the
 * connection is closed afterwards (its own DELETE then finds nothing, which it ignores).
 */
describe('terminateSession', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  async function serve(options: Parameters<typeof startFixtureServer>[0] = {}): Promise<FixtureServer> {
    const server = await startFixtureServer(options);
    cleanups.push(() => server.close());
    return server;
  }
  async function orphanSession(target: McpHttpTarget): Promise<string> {
    const connection = await connectMcp(target);
    cleanups.push(() => connection.close());
    expect(connection.sessionId).toEqual(expect.any(String));
    return connection.sessionId as string;
  }

  it('ends the session with DELETE; a second attempt finds it gone (404)', async () => {
    const server = await serve();
    const target = { url: server.url, transport: 'streamable-http' as const };
    const kept = await orphanSession(target);
    const orphan = await orphanSession(target);
    expect(server.sessions()).toBe(2);
    await expect(terminateSession(target, orphan)).resolves.toBe('terminated');
    expect(server.sessions()).toBe(1);
    await expect(terminateSession(target, orphan)).resolves.toBe('gone');
    await expect(terminateSession(target, 'never-issued')).resolves.toBe('gone');
    expect(server.sessions()).toBe(1);
    await terminateSession(target, kept);
    expect(server.sessions()).toBe(0);
  });

  it("sends the target's headers (credentials) and goes through the target's fetch", async () => {
    const server = await serve({ auth: { header: 'x-api-key', value: 'k1' } });
    const sent: { method: string; headers: Headers }[] = [];
    const counting: FetchFunction = (input, init) => {
      sent.push({ method: init?.method ?? 'GET', headers: new Headers(init?.headers) });
      return fetch(input, init);
    };
    const target: McpHttpTarget = { url: server.url, headers: { 'X-Api-Key': 'k1' }, fetch: counting };
    const orphan = await orphanSession(target);
    sent.length = 0;

    await expect(terminateSession({ ...target, headers: {} }, orphan)).rejects.toMatchObject({
      code: McpErrorCode.AUTH_FAILED,
      status: 401,
    });
    expect(server.sessions()).toBe(1);
    await expect(terminateSession(target, orphan)).resolves.toBe('terminated');
    expect(server.sessions()).toBe(0);
    expect(sent.map((request) => [request.method, request.headers.get('mcp-session-id'), request.headers.get('x-api-key')])).toEqual([
      ['DELETE', orphan, null],
      ['DELETE', orphan, 'k1'],
    ]);
  });

  it('obeys the SSRF-safe fetch: a refused address is not contacted', async () => {
    const server = await serve();
    const orphan = await orphanSession({ url: server.url });
    const denying = createOutboundFetch({ deny: ['127.0.0.0/8'] });
    cleanups.push(async () => denying.close());
    const refusal = await terminateSession({ url: server.url, fetch: denying }, orphan).catch((error: unknown) => error);
    expect(findOutboundBlock(refusal)).toBeDefined();
    expect(server.sessions()).toBe(1);
    const allowing = createOutboundFetch();
    cleanups.push(async () => allowing.close());
    await expect(terminateSession({ url: server.url, fetch: allowing }, orphan)).resolves.toBe('terminated');
    expect(server.sessions()).toBe(0);
  });

  it('reports 405 (the server lets no client end sessions) as not-allowed, other statuses and no server as errors', async () => {
    let status = 405;
    const http = createServer((_req, res) => res.writeHead(status).end());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    cleanups.push(() => new Promise((resolve) => http.close(() => resolve())));
    await expect(terminateSession({ url }, 's')).resolves.toBe('not-allowed');
    status = 500;
    await expect(terminateSession({ url }, 's')).rejects.toMatchObject({ code: McpErrorCode.PROTOCOL_ERROR, status: 500 });
    status = 503;
    await expect(terminateSession({ url }, 's')).rejects.toMatchObject({ code: McpErrorCode.UNREACHABLE, status: 503 });
    await expect(terminateSession({ url: 'http://127.0.0.1:1/mcp' }, 's')).rejects.toMatchObject({ code: McpErrorCode.UNREACHABLE });
  });

  it('gives up after its timeout', async () => {
    const http = createServer(() => undefined); // never answers
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    await expect(terminateSession({ url }, 's', { timeoutMs: 100 })).rejects.toMatchObject({ code: McpErrorCode.TIMEOUT });
  });
});
