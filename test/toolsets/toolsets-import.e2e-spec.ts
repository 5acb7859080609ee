import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, serverEverythingStdioTarget, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface ImportAnswer {
  dryRun: boolean;
  created: number;
  failed: number;
  items: {
    name: string;
    status: string;
    reason?: string;
    code?: string;
    toolsetId?: string;
    transport?: string;
    errors?: { path: string }[];
  }[];
}

/** A port where nothing listens: bound, then closed. */
async function deadUrl(): Promise<string> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/mcp`;
}

describe('POST /toolsets/import', () => {
  const everything = serverEverythingStdioTarget();
  let stack: TestStack;
  let open: FixtureServer;
  let guarded: FixtureServer;
  let file: Record<string, unknown>;

  beforeAll(async () => {
    [stack, open, guarded] = await Promise.all([
      startRunStack({ STDIO_TOOLSETS: 'on', STDIO_COMMANDS: process.execPath }, { worker: false }),
      startFixtureServer({ tools: basicTools() }),
      startFixtureServer({ tools: basicTools(), auth: { header: 'authorization', value: 'Bearer right' } }),
    ]);
    file = {
      mcpServers: {
        everything: { command: everything.command, args: everything.args, env: { DEBUG: 'no' } },
        streamable: { url: open.url },
        legacy: { type: 'sse', url: open.sseUrl },
        vscodeHttp: { type: 'http', url: guarded.url, headers: { authorization: 'Bearer right' }, disabled: false },
        wrongKey: { url: guarded.url, headers: { authorization: 'Bearer wrong' } },
        down: { url: await deadUrl() },
        notAllowed: { command: 'npx', args: ['-y', 'some-server'] },
        broken: { url: 'ftp://example.com/mcp', extra: true },
      },
    };
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), open?.close(), guarded?.close()]);
  });

  const names = async () =>
    (await api<{ items: { name: string }[] }>(stack.apiUrl, 'GET', '/toolsets?limit=100')).body.items.map((item) => item.name).sort();

  it('with ?dryRun=true connects to every entry and saves nothing', async () => {
    const res = await api<ImportAnswer>(stack.apiUrl, 'POST', '/toolsets/import?dryRun=true', file);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dryRun: true, created: 0, failed: 4 });
    expect(res.body.items.filter((item) => item.status === 'valid').map((item) => item.name)).toEqual([
      'everything',
      'streamable',
      'legacy',
      'vscodeHttp',
    ]);
    expect(await names()).toEqual([]);
  });

  it('creates one toolset per working entry and says exactly why each other one was not created', async () => {
    const res = await api<ImportAnswer>(stack.apiUrl, 'POST', '/toolsets/import', file);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dryRun: false, created: 4, failed: 4 });
    const byName = Object.fromEntries(res.body.items.map((item) => [item.name, item]));
    expect(byName.everything).toMatchObject({ status: 'created', transport: 'stdio' });
    expect(byName.streamable).toMatchObject({ status: 'created', transport: 'streamable-http' });
    expect(byName.legacy).toMatchObject({ status: 'created', transport: 'sse' });
    expect(byName.vscodeHttp).toMatchObject({ status: 'created', transport: 'streamable-http' });
    expect(byName.wrongKey).toMatchObject({ status: 'failed', reason: 'auth-failed', code: 'MCP_AUTH_FAILED' });
    expect(byName.down).toMatchObject({ status: 'failed', reason: 'unreachable', code: 'MCP_UNREACHABLE' });
    expect(byName.notAllowed).toMatchObject({ status: 'failed', reason: 'stdio-disabled', code: 'STDIO_COMMAND_NOT_ALLOWED' });
    expect(byName.broken).toMatchObject({ status: 'failed', reason: 'invalid', code: 'VALIDATION_FAILED' });
    expect(byName.broken.errors?.map((problem) => problem.path).sort()).toEqual(['/mcpServers/broken/extra', '/mcpServers/broken/url']);
    // Nothing half written: only the created entries exist, each under its entry's name.
    expect(await names()).toEqual(['everything', 'legacy', 'streamable', 'vscodeHttp']);
    const created = await api<{ headers: Record<string, string> }>(stack.apiUrl, 'GET', `/toolsets/${byName.vscodeHttp.toolsetId}`);
    expect(created.body.headers).toEqual({ authorization: '***' });
    expect(JSON.stringify(res.body)).not.toContain('Bearer');
  });

  it('reads the VS Code shape, and refuses a file that is neither', async () => {
    const vscode = await api<ImportAnswer>(stack.apiUrl, 'POST', '/toolsets/import?dryRun=true', {
      inputs: [],
      servers: { one: { type: 'http', url: open.url }, two: { type: 'websocket', url: open.url } },
    });
    expect(vscode.status).toBe(200);
    expect(vscode.body.items).toEqual([
      expect.objectContaining({ name: 'one', status: 'valid' }),
      expect.objectContaining({
        name: 'two',
        status: 'failed',
        reason: 'invalid',
        errors: [expect.objectContaining({ path: '/servers/two/type' })],
      }),
    ]);
    for (const body of [{}, { mcpServers: {}, servers: {} }, { mcpServers: [] }]) {
      expect((await api(stack.apiUrl, 'POST', '/toolsets/import', body)).status).toBe(400);
    }
    expect((await api(stack.apiUrl, 'POST', '/toolsets/import?dryRun=yes', { mcpServers: {} })).status).toBe(400);
  });
});
