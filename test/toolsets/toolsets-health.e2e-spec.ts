import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { registerToolset, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface Check {
  ok: boolean;
  latencyMs: number;
  protocolVersion: string | null;
  checkedAt: string;
  error?: { code: string; message: string };
}
interface Toolset {
  updatedAt: string;
  health: (Omit<Check, 'protocolVersion'> & { protocolVersion?: string }) | null;
}

describe('toolset health: POST /toolsets/:id/check', () => {
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([startRunStack({}, { worker: false }), startFixtureServer({ tools: basicTools() })]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('answers and stores the outcome of a check, healthy then down, without changing the toolset', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    const before = await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    expect(before.body.health).toBeNull();

    const healthy = await api<Check>(stack.apiUrl, 'POST', `/toolsets/${id}/check`);
    expect(healthy.status).toBe(200);
    expect(healthy.body).toMatchObject({ ok: true, protocolVersion: '2025-11-25' });
    expect(healthy.body.latencyMs).toBeGreaterThanOrEqual(0);
    expect(healthy.body.error).toBeUndefined();
    const stored = await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    expect(stored.body.health).toEqual({
      ok: true,
      checkedAt: healthy.body.checkedAt,
      latencyMs: healthy.body.latencyMs,
      protocolVersion: '2025-11-25',
    });
    expect(stored.body.updatedAt).toBe(before.body.updatedAt);
    expect(server.sessions()).toBe(0);

    await server.close();
    const down = await api<Check>(stack.apiUrl, 'POST', `/toolsets/${id}/check`);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ ok: false, protocolVersion: null, error: { code: 'MCP_UNREACHABLE' } });
    const listed = await api<{ items: Toolset[] }>(stack.apiUrl, 'GET', '/toolsets');
    expect(listed.body.items[0].health).toMatchObject({ ok: false, error: { code: 'MCP_UNREACHABLE' } });

    expect((await api(stack.apiUrl, 'POST', '/toolsets/000000000000000000000000/check')).status).toBe(404);
  });
});

describe('toolset health: periodic checks (TOOLSET_HEALTH_INTERVAL_MS)', () => {
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([
      startRunStack({ TOOLSET_HEALTH_INTERVAL_MS: '300' }),
      startFixtureServer({ tools: basicTools() }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('a worker checks every toolset on its own, and sees the server go down', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    const health = async () => (await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`)).body.health;
    let last: Toolset['health'] = null;
    const poll = async (until: (seen: Toolset['health']) => boolean, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!until((last = await health()))) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await poll((seen) => seen?.ok === true, 'a healthy check');
    await server.close();
    await poll((seen) => seen?.ok === false, 'an unhealthy check');
    expect(last).toMatchObject({ ok: false, error: { code: 'MCP_UNREACHABLE' } });
  });
});
