import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';
import { as, createKey, greeting, type CreatedKey } from './support.js';

describe('API keys: created once, hashed, scoped, revocable, expiring', () => {
  let stack: LoggedApi;
  /** Every answer the suite saw after a key was created (the key must be in none). */
  const answers: string[] = [];
  const keys: string[] = [];

  const remember = <T extends { body: unknown; headers: Headers }>(res: T): T => {
    answers.push(String(JSON.stringify(res.body)), JSON.stringify([...res.headers]));
    return res;
  };
  const newKey = async (body: Record<string, unknown>): Promise<CreatedKey> => {
    const created = await createKey(stack.url, body);
    keys.push(created.key);
    return created;
  };

  beforeAll(async () => {
    stack = await startLoggedApi();
    keys.push(keyOf(stack.url));
  });
  afterAll(async () => {
    await stack.close();
  });

  it('shows the key once, then only its prefix and metadata', async () => {
    const repeated = await api<{ errors: { path: string }[] }>(stack.url, 'POST', '/api-keys', {
      name: 'ci',
      scopes: ['read', 'run', 'read'],
    });
    expect(repeated.status).toBe(400);
    expect(repeated.body.errors.map((problem) => problem.path)).toEqual(['/scopes/2']);
    const unknown = await api<{ errors: { path: string; code: string }[] }>(stack.url, 'POST', '/api-keys', {
      name: 'ci',
      scopes: ['run'],
      workflows: ['0123456789abcdef01234567'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ path: '/workflows/0', code: 'UNKNOWN_WORKFLOW' })]);
    const created = await newKey({ name: 'ci', scopes: ['read', 'run'] });
    expect(created).toMatchObject({
      name: 'ci',
      scopes: ['read', 'run'],
      workflows: null,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.key).toMatch(/^mcpf_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(created.prefix.length).toBeLessThan(16);
    const admin = remember(await api<{ items: { id: string }[] }>(stack.url, 'GET', '/api-keys'));
    expect(created.createdBy).toBe(admin.body.items.at(-1)?.id);
    expect(admin.body.items.map((item) => item.id)).toContain(created.id);
    const one = remember(await api(stack.url, 'GET', `/api-keys/${created.id}`));
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('key');
    expect(one.body).not.toHaveProperty('hash');
  });

  it('refuses malformed creation requests with paths', async () => {
    const res = remember(
      await api<{ errors: { path: string }[] }>(stack.url, 'POST', '/api-keys', {
        name: '',
        scopes: ['root'],
        workflows: ['x'],
        expiresAt: '2001-01-01T00:00:00Z',
        extra: 1,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e) => e.path).sort()).toEqual(['/expiresAt', '/extra', '/name', '/scopes/0', '/workflows/0']);
    expect(remember(await api(stack.url, 'POST', '/api-keys', { name: 'none', scopes: [] })).status).toBe(400);
  });

  it('lets each scope do its part and answers 403 naming the missing scope', async () => {
    const read = (await newKey({ name: 'reader', scopes: ['read'] })).key;
    const write = (await newKey({ name: 'writer', scopes: ['write'] })).key;
    const run = (await newKey({ name: 'runner', scopes: ['run'] })).key;

    const denied = remember(await as(read)(stack.url, 'POST', '/workflows', greeting('nope')));
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ code: 'FORBIDDEN', message: expect.stringContaining('"write"') });
    for (const [method, path] of [
      ['POST', '/toolsets'],
      ['POST', '/toolsets/preview'],
      ['DELETE', '/toolsets/65f000000000000000000000'],
      ['POST', '/providers'],
      ['GET', '/api-keys'],
    ]) {
      expect({
        method,
        path,
        status: remember(await as(read)(stack.url, method, path, method === 'POST' ? {} : undefined)).status,
      }).toEqual({ method, path, status: 403 });
    }

    const created = remember(await as(write)<{ id: string }>(stack.url, 'POST', '/workflows', greeting('hello')));
    expect(created.status).toBe(201);
    const workflowId = created.body.id;
    expect(remember(await as(read)(stack.url, 'GET', `/workflows/${workflowId}`)).status).toBe(200);
    expect(remember(await as(read)(stack.url, 'GET', '/toolsets')).status).toBe(200);
    expect(remember(await as(read)(stack.url, 'GET', '/runs')).status).toBe(200);

    const runDenied = remember(await as(write)(stack.url, 'POST', `/workflows/${workflowId}/runs`, { inputs: { who: 'Ada' } }));
    expect(runDenied.status).toBe(403);
    expect(runDenied.body.message).toContain('"run"');
    const started = remember(
      await as(run)<{ id: string; status: string }>(stack.url, 'POST', `/workflows/${workflowId}/runs`, { inputs: { who: 'Ada' } }),
    );
    expect(started.status).toBe(202);
    expect(remember(await as(run)(stack.url, 'GET', `/runs/${started.body.id}`)).status).toBe(200);
    expect(remember(await as(run)(stack.url, 'POST', '/workflows', greeting('no'))).status).toBe(403);
    expect(remember(await as(write)(stack.url, 'POST', '/api-keys', { name: 'escalate', scopes: ['admin'] })).status).toBe(403);
    expect(
      remember(await as(write)(stack.url, 'POST', '/providers', { name: 'p', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'k' })).status,
    ).toBe(403);
  });

  it('refuses a revoked key at once and keeps it listed as revoked', async () => {
    const victim = await newKey({ name: 'leaked', scopes: ['read'] });
    expect(remember(await as(victim.key)(stack.url, 'GET', '/workflows')).status).toBe(200);
    expect(remember(await api(stack.url, 'DELETE', `/api-keys/${victim.id}`)).status).toBe(204);
    const refused = remember(await as(victim.key)(stack.url, 'GET', '/workflows'));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHENTICATED');
    const listed = remember(await api<{ revokedAt: string | null }>(stack.url, 'GET', `/api-keys/${victim.id}`));
    expect(listed.body.revokedAt).toEqual(expect.any(String));
    expect(remember(await api(stack.url, 'DELETE', `/api-keys/${victim.id}`)).status).toBe(204);
    expect(remember(await api(stack.url, 'DELETE', '/api-keys/65f000000000000000000000')).status).toBe(404);
  });

  it('refuses an expired key with the same 401', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const shortLived = await newKey({ name: 'short', scopes: ['read'], expiresAt });
    expect(shortLived.expiresAt).toBe(expiresAt);
    while (Date.now() <= Date.parse(expiresAt)) await new Promise((resolve) => setTimeout(resolve, 100));
    const refused = remember(await as(shortLived.key)(stack.url, 'GET', '/workflows'));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHENTICATED');
  }, 20_000);

  it('records lastUsedAt off the request path', async () => {
    const used = await newKey({ name: 'used', scopes: ['read'] });
    expect(remember(await as(used.key)(stack.url, 'GET', '/workflows')).status).toBe(200);
    let lastUsedAt: string | null = null;
    for (let i = 0; i < 50 && !lastUsedAt; i++) {
      lastUsedAt = remember(await api<{ lastUsedAt: string | null }>(stack.url, 'GET', `/api-keys/${used.id}`)).body.lastUsedAt;
      if (!lastUsedAt) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lastUsedAt).toEqual(expect.any(String));
  }, 20_000);

  it('never shows a key after its creation: not in answers, log lines or raw documents', async () => {
    expect(keys.length).toBeGreaterThan(5);
    const logs = stack.logs.join('\n');
    expect(logs).toMatch(/"keyId":"[0-9a-f]{24}"/);
    const documents = JSON.stringify(await rawDatabaseDump(stack.config));
    expect(documents).toContain('"api_keys"');
    for (const key of keys) {
      const secret = key.slice('mcpf_'.length);
      for (const answer of answers) expect(answer).not.toContain(secret);
      expect(logs).not.toContain(secret);
      expect(documents).not.toContain(secret);
    }
  });
});
