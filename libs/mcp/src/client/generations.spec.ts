import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectMcp, listToolset } from '../connect.js';
import { McpError, McpErrorCode } from '../errors.js';
import { mcpClientMemory } from '../pool/client-pool.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { startStatelessFixtureServer, type StatelessFixtureServer } from '../testing/stateless-fixture-server.js';
import type { FetchFunction } from '../types.js';

/** A fetch that records the JSON-RPC methods it sends, to prove which path a connect took. */
function recordingFetch(): { fetch: FetchFunction; methods: string[] } {
  const methods: string[] = [];
  const fetch: FetchFunction = (input, init) => {
    if (typeof init?.body === 'string') {
      const method = (JSON.parse(init.body) as { method?: string }).method;
      if (method) methods.push(method);
    }
    return globalThis.fetch(input, init);
  };
  return { fetch, methods };
}

describe('every MCP generation behind one URL', () => {
  const sessionServers = new Map<string, FixtureServer>();
  let stateless: StatelessFixtureServer;
  let guarded: StatelessFixtureServer;

  beforeAll(async () => {
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      sessionServers.set(version, await startFixtureServer({ protocolVersion: version, name: `fixture-${version}` }));
    }
    stateless = await startStatelessFixtureServer();
    guarded = await startStatelessFixtureServer({ auth: { header: 'authorization', value: 'Bearer right' } });
  });
  afterAll(() => Promise.all([...sessionServers.values(), stateless, guarded].map((server) => server.close())));

  it.each([
    ['2024-11-05', 'sse'],
    ['2025-03-26', 'streamable-http'],
    ['2025-06-18', 'streamable-http'],
    ['2025-11-25', 'streamable-http'],
  ])('auto finds a %s server (%s) and calls it', async (version, transport) => {
    const server = sessionServers.get(version)!;
    // The 2024-11-05 generation is a legacy HTTP+SSE endpoint: only its SSE URL exists.
    const url = version === '2024-11-05' ? server.sseUrl : server.url;
    const listing = await listToolset({ url });
    expect(listing).toMatchObject({ transport, serverInfo: { name: `fixture-${version}`, protocolVersion: version } });
    const connection = await connectMcp({ url });
    expect((await connection.callTool('echo', { message: version })).text).toBe(version);
    await connection.close();
  });

  it('auto finds a 2026-07-28 stateless server: no session id, no DELETE, tools listed and called', async () => {
    const listing = await listToolset({ url: stateless.url });
    expect(listing.serverInfo).toEqual({ name: 'mcpflow-stateless-fixture', version: '1.0.0', protocolVersion: '2026-07-28' });
    expect(listing.transport).toBe('streamable-http');
    expect(listing.tools.map((tool) => tool.name)).toContain('echo');
    const connection = await connectMcp({ url: stateless.url });
    expect(connection.sessionId).toBeUndefined();
    expect((await connection.callTool('add', { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    await connection.close();
    expect(stateless.sessionTraffic()).toEqual({ withSessionId: 0, deletes: 0 });
    expect(stateless.requests('initialize')).toBe(0);
  });

  it('the remembered revision goes first: a session server is not probed with server/discover', async () => {
    const recorded = recordingFetch();
    const connection = await connectMcp({
      url: sessionServers.get('2025-06-18')!.url,
      protocolVersion: '2025-06-18',
      fetch: recorded.fetch,
    });
    expect(recorded.methods[0]).toBe('initialize');
    expect(recorded.methods).not.toContain('server/discover');
    await connection.close();
  });

  it('a stateless server is asked server/discover once per process: later connects (a run pool) send no request before the call', async () => {
    const fresh = await startStatelessFixtureServer();
    try {
      await listToolset({ url: fresh.url, protocolVersion: '2026-07-28' });
      expect(fresh.requests('server/discover')).toBe(1);
      for (let run = 0; run < 2; run++) {
        const pool = mcpClientMemory();
        const { connection } = await pool.acquire({ url: fresh.url, protocolVersion: '2026-07-28' });
        expect((await connection.callTool('echo', { message: `run ${run}` })).text).toBe(`run ${run}`);
        await pool.closeAll();
      }
      expect(fresh.requests()).toBe(4); // discover, tools/list, two tools/call
      expect(fresh.sessionTraffic()).toEqual({ withSessionId: 0, deletes: 0 });
    } finally {
      await fresh.close();
    }
  });

  it('falls back when the server changed generation since it was remembered', async () => {
    const nowLegacy = await connectMcp({ url: sessionServers.get('2025-11-25')!.url, protocolVersion: '2026-07-28' });
    expect(nowLegacy.serverInfo.protocolVersion).toBe('2025-11-25');
    await nowLegacy.close();
    const nowModern = await connectMcp({ url: stateless.url, protocolVersion: '2025-11-25' });
    expect(nowModern.serverInfo.protocolVersion).toBe('2026-07-28');
    expect((await nowModern.callTool('echo', { message: 'moved on' })).text).toBe('moved on');
    await nowModern.close();
  });

  it('a refused credential on a stateless server is MCP_AUTH_FAILED at once, with no other attempt', async () => {
    const recorded = recordingFetch();
    const error = (await connectMcp({ url: guarded.url, headers: { authorization: 'Bearer wrong' }, fetch: recorded.fetch }).catch(
      (e: unknown) => e,
    )) as McpError;
    expect(error).toMatchObject({ code: McpErrorCode.AUTH_FAILED, status: 403 });
    expect(recorded.methods).toEqual(['server/discover']);
    const connection = await connectMcp({ url: guarded.url, headers: { authorization: 'Bearer right' } });
    expect((await connection.callTool('echo', { message: 'in' })).text).toBe('in');
    await connection.close();
  });

  it('when no generation answers, every cause is listed with what it tried', async () => {
    const error = (await connectMcp({ url: sessionServers.get('2025-11-25')!.url.replace('/mcp', '/nothing-here') }).catch(
      (e: unknown) => e,
    )) as McpError;
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(McpErrorCode.PROTOCOL_ERROR);
    expect(error.attempts).toEqual([
      { transport: 'streamable-http', protocolVersion: '2026-07-28' },
      { transport: 'streamable-http' },
      { transport: 'sse' },
    ]);
    expect(error.causes).toHaveLength(3);
    expect(error.message).toMatch(/2026-07-28 \(stateless\): .*Streamable HTTP: .*404.*legacy SSE: .*404/);
  });
});
