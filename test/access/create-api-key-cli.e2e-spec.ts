import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { bearer } from '../support/auth.js';
import { api } from '../support/http.js';
import { startStack, type TestStack } from '../support/stack.js';
import { DIST_ROOT, ensureWorkerBuilt, envOf } from '../support/worker-process.js';

describe('the one-off create-api-key command', () => {
  let stack: TestStack;
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(DIST_ROOT, 'dist', 'apps', 'api', 'src', 'cli', 'create-api-key.js'), ...args], {
      cwd: DIST_ROOT,
      env: envOf(stack.config, {}),
      encoding: 'utf8',
      timeout: 90_000,
    });

  beforeAll(async () => {
    ensureWorkerBuilt();
    stack = await startStack({}, { worker: false });
  }, 60_000);
  afterAll(() => stack.close());

  it('creates a key in the database and prints it once', async () => {
    const result = cli(['--name', 'ops', '--scopes', 'admin']);
    expect({ status: result.status, signal: result.signal, stderr: result.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    const created = JSON.parse(result.stdout) as { id: string; key: string; scopes: string[]; createdBy: string | null };
    expect(created).toMatchObject({ scopes: ['admin'], createdBy: null, key: expect.stringMatching(/^mcpf_/) });
    const listed = await api<{ items: { id: string }[] }>(stack.apiUrl, 'GET', '/api-keys', undefined, bearer(created.key));
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item) => item.id)).toContain(created.id);
  }, 120_000);

  it('names what is wrong with its arguments', () => {
    const result = cli(['--name', 'x', '--scopes', 'root']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('/scopes/0');
    expect(cli([]).stderr).toContain('usage:');
  }, 200_000);
});
