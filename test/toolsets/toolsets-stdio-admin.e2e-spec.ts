import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, serverEverythingStdioTarget, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { as, createKey } from '../access/support.js';
import { api } from '../support/http.js';
import { startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface ErrorBody {
  code: string;
  errors?: { path: string; code: string }[];
}
interface ImportAnswer {
  created: number;
  failed: number;
  items: { name: string; status: string; reason?: string; code?: string }[];
}

/** Every start of the process appends a line to STARTS_FILE (a preload before server-everything itself). */
const COUNT_STARTS = `import { appendFileSync } from 'node:fs'; appendFileSync(process.env.STARTS_FILE, 'started\\n');`;

describe('stdio toolsets: only an admin key makes the API start a process', () => {
  const everything = serverEverythingStdioTarget();
  const folder = mkdtempSync(join(tmpdir(), 'mcpflow-stdio-admin-'));
  const startsFile = join(folder, 'starts');
  const stdioBody = {
    name: 'counted',
    command: everything.command,
    args: ['--import', `data:text/javascript,${encodeURIComponent(COUNT_STARTS)}`, ...(everything.args ?? [])],
    env: { STARTS_FILE: startsFile },
  };
  const starts = () => (existsSync(startsFile) ? readFileSync(startsFile, 'utf8').split('\n').filter(Boolean).length : 0);
  let stack: TestStack;
  let fixture: FixtureServer;
  let writer: ReturnType<typeof as>;

  beforeAll(async () => {
    [stack, fixture] = await Promise.all([
      startRunStack({ STDIO_TOOLSETS: 'on', STDIO_COMMANDS: process.execPath }, { worker: false }),
      startFixtureServer({ tools: basicTools() }),
    ]);
    writer = as((await createKey(stack.apiUrl, { name: 'author', scopes: ['write'] })).key);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), fixture?.close()]);
    rmSync(folder, { recursive: true, force: true });
  });

  it('refuses create and preview to a write key (403 STDIO_ADMIN_REQUIRED at /command) and starts nothing', async () => {
    for (const path of ['/toolsets', '/toolsets/preview']) {
      const res = await writer<ErrorBody>(stack.apiUrl, 'POST', path, stdioBody);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'STDIO_ADMIN_REQUIRED', errors: [{ path: '/command', code: 'STDIO_ADMIN_REQUIRED' }] });
    }
    // Before the operator's allow-list is consulted: a write key cannot probe which commands it holds.
    const other = await writer<ErrorBody>(stack.apiUrl, 'POST', '/toolsets', { command: 'npx', args: ['-y', 'x'] });
    expect(other.body.code).toBe('STDIO_ADMIN_REQUIRED');
    expect(starts()).toBe(0);
    expect((await api<{ items: unknown[] }>(stack.apiUrl, 'GET', '/toolsets')).body.items).toEqual([]);
  });

  it('answers an import per entry: the stdio entry refused, the URL entry created (dry run alike)', async () => {
    const file = {
      mcpServers: { local: { command: stdioBody.command, args: stdioBody.args, env: stdioBody.env }, remote: { url: fixture.url } },
    };
    for (const query of ['?dryRun=true', '']) {
      const res = await writer<ImportAnswer>(stack.apiUrl, 'POST', `/toolsets/import${query}`, file);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        expect.objectContaining({ name: 'local', status: 'failed', reason: 'forbidden', code: 'STDIO_ADMIN_REQUIRED' }),
        expect.objectContaining({ name: 'remote', status: query ? 'valid' : 'created' }),
      ]);
    }
    expect(starts()).toBe(0);
  });

  it('refuses refresh, check, an ad-hoc call and a change of a stored stdio toolset to a write key; reading stays open', async () => {
    const created = await api<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', stdioBody);
    expect(created.status).toBe(201);
    const id = created.body.id;
    const afterCreate = starts();
    expect(afterCreate).toBeGreaterThanOrEqual(1);

    const refused: [string, string, unknown?][] = [
      ['POST', `/toolsets/${id}/refresh`],
      ['POST', `/toolsets/${id}/check`],
      ['POST', `/toolsets/${id}/tools/echo/call`, { arguments: { message: 'hi' } }],
      ['PATCH', `/toolsets/${id}`, { name: 'renamed' }],
    ];
    for (const [method, path, body] of refused) {
      const res = await writer<ErrorBody>(stack.apiUrl, method, path, body);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'STDIO_ADMIN_REQUIRED' });
    }
    expect(starts()).toBe(afterCreate);
    expect((await writer<{ name: string }>(stack.apiUrl, 'GET', `/toolsets/${id}`)).body.name).toBe('counted');

    // The same routes with the admin key do start it: the count above would have seen a start.
    const checked = await api<{ ok: boolean }>(stack.apiUrl, 'POST', `/toolsets/${id}/check`);
    expect(checked.body.ok).toBe(true);
    expect(starts()).toBe(afterCreate + 1);
  });
});
