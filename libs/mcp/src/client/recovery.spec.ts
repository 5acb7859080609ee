import { afterEach, describe, expect, it } from '@jest/globals';
import { McpError, McpErrorCode } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { serverEverythingStdioTarget } from '../testing/server-everything.js';
import { childPidsMatching, waitUntil } from '../testing/test-helpers.js';
import { connectMcp } from '../connect.js';
import type { ConnectionFailure, McpConnection } from '../types.js';

/**
 * A real restart takes longer than the client needs to notice its kept-alive sockets closing;
 * with no downtime at all, the next POST may go out on a socket the server already closed — a
 * request that may have been sent, which is (rightly) not repeated.
 */
const RESTART_DOWNTIME_MS = 50;

describe('recovery', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });
  async function serve(options: Parameters<typeof startFixtureServer>[0] = {}): Promise<FixtureServer> {
    const server = await startFixtureServer(options);
    cleanups.push(() => server.close());
    return server;
  }
  async function connect(...args: Parameters<typeof connectMcp>): Promise<McpConnection> {
    const connection = await connectMcp(...args);
    cleanups.unshift(() => connection.close());
    return connection;
  }

  it.each([404, 400] as const)(
    're-initialises a session the restarted server no longer knows (%i) and sends the call once more',
    async (staleSessionStatus) => {
      const server = await serve({ staleSessionStatus });
      const connection = await connect({ url: server.url });
      expect((await connection.callTool('echo', { message: 'before' })).text).toBe('before');
      await server.restart(RESTART_DOWNTIME_MS);
      expect(server.sessions()).toBe(0);
      expect((await connection.callTool('echo', { message: 'after' })).text).toBe('after');
      expect(server.calls('echo')).toBe(2); // the rejected request never ran; the resent one ran once
      expect(server.sessions()).toBe(1);
      await connection.close();
      expect(server.sessions()).toBe(0);
    },
  );

  it('re-initialises a legacy SSE session after a restart', async () => {
    const server = await serve();
    const connection = await connect({ url: server.sseUrl, transport: 'sse' });
    await connection.callTool('echo', { message: 'before' });
    await server.restart(RESTART_DOWNTIME_MS);
    expect((await connection.callTool('echo', { message: 'after' })).text).toBe('after');
    expect(server.calls('echo')).toBe(2);
  });

  it('fails a call in flight when its session dies with MCP_UNREACHABLE at once, and never repeats it', async () => {
    const server = await serve();
    const connection = await connect({ url: server.url });
    const started = Date.now();
    let restarted: Promise<void> | undefined;
    const call = connection.callTool(
      'slow',
      { steps: 100, stepMs: 50 },
      { timeoutMs: 20_000, onProgress: () => (restarted ??= server.restart()) },
    );
    const error = await call.then(
      () => undefined,
      (e: McpError) => e,
    );
    await restarted;
    expect(error).toMatchObject({ code: McpErrorCode.UNREACHABLE, message: expect.stringContaining('not repeated') });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(server.calls('slow')).toBe(1);
    expect((await connection.callTool('echo', { message: 'next' })).text).toBe('next');
  });

  it('retries a refused request with backoff while the server is down, then sends it once', async () => {
    const server = await serve();
    const connection = await connect({ url: server.url });
    const restarting = server.restart(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await connection.callTool('echo', { message: 'back' })).text).toBe('back');
    await restarting;
    expect(server.calls('echo')).toBe(1);
  });

  it('reports a transport error to failure listeners', async () => {
    const server = await serve();
    const connection = await connect({ url: server.url });
    const failures: ConnectionFailure[] = [];
    connection.onFailure((failure) => failures.push(failure));
    await server.restart();
    await waitUntil(() => failures.length > 0, 3_000, 'a failure report');
    expect(failures[0].kind).toBe('error');
  });

  it('stdio: a server process that exits is reported and replaced by the next call', async () => {
    const connection = await connect(serverEverythingStdioTarget());
    const failures: ConnectionFailure[] = [];
    connection.onFailure((failure) => failures.push(failure));
    const [pid] = childPidsMatching('server-everything');
    expect(pid).toBeDefined();
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => failures.some((f) => f.kind === 'close'), 3_000, 'the close report');
    expect((await connection.callTool('echo', { message: 'respawned' })).text).toBe('Echo: respawned');
    expect(childPidsMatching('server-everything')).not.toContain(pid);
  });
});
