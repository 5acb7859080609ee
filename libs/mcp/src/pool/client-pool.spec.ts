import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { terminateSession } from '../client/terminate-session.js';
import { McpErrorCode } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { serverEverythingStdioTarget } from '../testing/server-everything.js';
import { childPidsMatching, waitUntil } from '../testing/test-helpers.js';
import { McpClientPool, mcpClientMemory, type PooledSession } from './client-pool.js';
import { poolKey } from '../client/pool-key.js';

describe('McpClientPool (mcpClientMemory)', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(() => server.close());

  it('reuses one session per URL + headers within a run; other credentials on the same URL never share', async () => {
    const pool = mcpClientMemory();
    const tenantA = { url: server.url, headers: { 'X-Tenant': 'a' } };
    const reused: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const { connection, reused: wasReused } = await pool.acquire(tenantA);
      reused.push(wasReused);
      await connection.callTool('echo', { message: `a${i}` });
    }
    expect(reused).toEqual([false, true, true]);
    expect(server.sessions()).toBe(1);

    const b = await pool.acquire({ url: server.url, headers: { 'x-tenant': 'b' } });
    const aAgain = await pool.acquire({ url: server.url, headers: { 'x-tenant': 'a' } }); // header names are case-insensitive
    expect(b.reused).toBe(false);
    expect(aAgain.reused).toBe(true);
    expect(b.connection).not.toBe(aAgain.connection);
    expect(server.sessions()).toBe(2);
    expect(pool.size).toBe(2);
    await pool.closeAll();
    expect(server.sessions()).toBe(0);
  });

  it('shares one connect among concurrent acquires of a key', async () => {
    const pool = new McpClientPool();
    const acquired = await Promise.all(Array.from({ length: 8 }, () => pool.acquire({ url: server.url })));
    expect(new Set(acquired.map((a) => a.connection)).size).toBe(1);
    expect(acquired.filter((a) => !a.reused)).toHaveLength(1);
    expect(server.sessions()).toBe(1);
    await pool.closeAll();
  });

  it('closeAll() terminates every session before resolving, is idempotent, and refuses later acquires', async () => {
    const pool = new McpClientPool();
    await pool.acquire({ url: server.url });
    await pool.acquire({ url: server.url, headers: { authorization: 'Bearer other' } });
    await pool.acquire({ url: server.sseUrl, transport: 'sse' });
    expect(server.sessions()).toBe(3);
    const first = pool.closeAll();
    expect(pool.closeAll()).toBe(first);
    await first;
    expect(pool.size).toBe(0);
    // Streamable HTTP sessions are gone at once (DELETE awaited); the SSE stream's end reaches the server a moment later.
    await waitUntil(() => server.sessions() === 0, 2_000, 'no sessions left');
    await expect(pool.acquire({ url: server.url })).rejects.toMatchObject({ code: McpErrorCode.CANCELED });
  });

  it('leaves no session behind when closeAll() races a pending connect', async () => {
    const pool = new McpClientPool();
    const pending = pool.acquire({ url: server.url });
    await pool.closeAll();
    await expect(pending).rejects.toMatchObject({ code: McpErrorCode.CANCELED });
    await waitUntil(() => server.sessions() === 0, 2_000, 'no sessions left');
  });

  it('forgets a failed connect so the next acquire tries again', async () => {
    const pool = new McpClientPool();
    const target = { url: server.url.replace('/mcp', '/missing'), transport: 'streamable-http' as const };
    await expect(pool.acquire(target)).rejects.toMatchObject({ code: McpErrorCode.PROTOCOL_ERROR });
    expect(pool.size).toBe(0);
    await expect(pool.acquire(target)).rejects.toMatchObject({ code: McpErrorCode.PROTOCOL_ERROR });
    await pool.closeAll();
  });

  it('evicts a connection whose transport errors; the next acquire connects afresh; closeAll closes both', async () => {
    const restartable = await startFixtureServer();
    const pool = new McpClientPool();
    try {
      const first = await pool.acquire({ url: restartable.url });
      await restartable.restart(50);
      await waitUntil(() => pool.size === 0, 3_000, 'eviction');
      const second = await pool.acquire({ url: restartable.url });
      expect(second.reused).toBe(false);
      expect(second.connection).not.toBe(first.connection);
      expect((await second.connection.callTool('echo', { message: 'fresh' })).text).toBe('fresh');
      await pool.closeAll();
      expect(first.connection.closed).toBe(true);
      expect(restartable.sessions()).toBe(0);
    } finally {
      await restartable.close();
    }
  });

  it('evicts a stdio connection whose server process exits', async () => {
    const pool = new McpClientPool();
    const target = serverEverythingStdioTarget();
    const first = await pool.acquire(target);
    const [pid] = childPidsMatching('server-everything');
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => pool.size === 0, 3_000, 'eviction');
    const second = await pool.acquire(target);
    expect(second.reused).toBe(false);
    expect((await second.connection.callTool('echo', { message: 'again' })).text).toBe('Echo: again');
    await pool.closeAll();
    expect(first.connection.closed).toBe(true);
    await waitUntil(() => childPidsMatching('server-everything').length === 0, 5_000, 'the stdio server to exit');
  });

  it('tells onSessionOpened of each Streamable HTTP session before the acquire that opened it resolves; SSE sessions are not reported', async () => {
    const told: PooledSession[] = [];
    const pool = new McpClientPool({
      onSessionOpened: async (session) => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        told.push(session);
      },
    });
    const tenantA = { url: server.url, headers: { authorization: 'Bearer a' } };
    const [first, second] = await Promise.all([pool.acquire(tenantA), pool.acquire(tenantA)]);
    expect(told).toEqual([{ key: poolKey(tenantA), target: tenantA, sessionId: first.connection.sessionId }]);
    expect(second.connection.sessionId).toBe(first.connection.sessionId);
    await pool.acquire({ url: server.sseUrl, transport: 'sse' });
    expect(told).toHaveLength(1);
    // The id is the server's: ending it from outside (as after a crash) leaves the server with the SSE session only.
    await expect(terminateSession(tenantA, told[0].sessionId)).resolves.toBe('terminated');
    expect(server.sessions()).toBe(1);
    await pool.closeAll();
    await waitUntil(() => server.sessions() === 0, 2_000, 'no sessions left');
  });

  it('reports the session that replaces one the server lost', async () => {
    const restartable = await startFixtureServer();
    const told: string[] = [];
    const pool = new McpClientPool({ onSessionOpened: (session) => void told.push(session.sessionId) });
    try {
      const { connection } = await pool.acquire({ url: restartable.url });
      await restartable.restart(50);
      expect((await connection.callTool('echo', { message: 'again' })).text).toBe('again');
      expect(told).toHaveLength(2);
      expect(told[1]).not.toBe(told[0]);
      expect(connection.sessionId).toBe(told[1]);
      await pool.closeAll();
      expect(restartable.sessions()).toBe(0);
    } finally {
      await restartable.close();
    }
  });

  it('fails the acquire and ends the session when onSessionOpened rejects (no session it could not account for)', async () => {
    const pool = new McpClientPool({ onSessionOpened: () => Promise.reject(new Error('store unreachable')) });
    await expect(pool.acquire({ url: server.url })).rejects.toThrow('store unreachable');
    expect(server.sessions()).toBe(0);
    expect(pool.size).toBe(0);
    await pool.closeAll();
  });

  it('keys by URL plus a hash of headers, transport and call timeout, never the secrets themselves', () => {
    const key = poolKey({ url: 'https://mcp.example/mcp', headers: { Authorization: 'Bearer top-secret' } });
    expect(key.startsWith('https://mcp.example/mcp#')).toBe(true);
    expect(key).not.toContain('top-secret');
    expect(poolKey({ url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer top-secret' } })).toBe(key);
    expect(poolKey({ url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer other' } })).not.toBe(key);
    expect(poolKey({ url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer top-secret' }, transport: 'sse' })).not.toBe(key);
    expect(poolKey({ url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer top-secret' }, timeoutMs: 5_000 })).not.toBe(key);
  });
});
