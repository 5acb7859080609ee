import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api } from '../support/http.js';
import { insertRaw, rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

const KEY = 'sk-live-provider-secret-1234567890';
const OTHER_KEY = 'sk-live-rotated-secret-0987654321';

describe('providers REST', () => {
  let stack: LoggedApi;
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) => api<T>(stack.url, method, path, body);

  beforeAll(async () => {
    stack = await startLoggedApi();
  });
  afterAll(async () => {
    await stack.close();
  });

  it('creates a provider, masks the key, seals it at rest', async () => {
    const created = await call('POST', '/providers', {
      name: 'local',
      baseURL: 'http://127.0.0.1:1/v1',
      apiKey: KEY,
      models: ['gpt-test'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'local', baseURL: 'http://127.0.0.1:1/v1', apiKey: '***', models: ['gpt-test'] });
    expect(created.body.id).toMatch(/^[0-9a-f]{24}$/);

    const fetched = await call('GET', `/providers/${created.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(created.body);

    const dump = await rawDatabaseDump(stack.config);
    const [stored] = dump.providers as Array<{ apiKey: string }>;
    expect(stored.apiKey).toMatch(/^enc:v1:/);
    expect(JSON.stringify(dump)).not.toContain(KEY);
  });

  it('rejects bad bodies with every problem and its path', async () => {
    const res = await call<{ code: string; errors: Array<{ path: string; code: string }> }>('POST', '/providers', {
      name: '',
      baseURL: 'ftp://example.com',
      models: 'gpt',
      extra: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    const paths = res.body.errors.map((error) => error.path).sort();
    expect(paths).toEqual(['/apiKey', '/baseURL', '/extra', '/models', '/name']);
    expect(res.body.errors.find((error) => error.path === '/extra')?.code).toBe('UNKNOWN_FIELD');
    expect((await call('POST', '/providers', { name: 'x', baseURL: 'https://user:pw@example.com/v1', apiKey: 'k' })).status).toBe(400);
  });

  it('updates fields; "***" keeps the stored key, a new key is sealed anew', async () => {
    const { body: created } = await call('POST', '/providers', { name: 'before', baseURL: 'https://api.example.com/v1', apiKey: KEY });
    const sealedKey = async () => {
      const dump = await rawDatabaseDump(stack.config);
      return (dump.providers as Array<{ _id: unknown; apiKey: string }>).find((doc) => String(doc._id) === created.id)?.apiKey;
    };
    const original = await sealedKey();

    const renamed = await call('PATCH', `/providers/${created.id}`, { name: 'after', apiKey: '***', models: ['m1', 'm2'] });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: created.id, name: 'after', apiKey: '***', models: ['m1', 'm2'] });
    expect(await sealedKey()).toBe(original);

    const rotated = await call('PATCH', `/providers/${created.id}`, { apiKey: OTHER_KEY });
    expect(rotated.status).toBe(200);
    expect(await sealedKey()).not.toBe(original);

    expect((await call('PATCH', `/providers/${created.id}`, {})).status).toBe(400);
    expect((await call('PATCH', `/providers/${created.id}`, { url: 'x' })).status).toBe(400);
    expect((await call('PATCH', '/providers/0123456789abcdef01234567', { name: 'x' })).status).toBe(404);
  });

  it('lists newest first, paged by cursor', async () => {
    for (const name of ['p1', 'p2', 'p3']) await call('POST', '/providers', { name, baseURL: 'https://api.example.com/v1', apiKey: KEY });
    const first = await call<{ items: Array<{ name: string; apiKey: string }>; nextCursor: string | null }>('GET', '/providers?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((item) => item.name)).toEqual(['p3', 'p2']);
    expect(first.body.items.every((item) => item.apiKey === '***')).toBe(true);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await call<{ items: Array<{ name: string }>; nextCursor: string | null }>(
      'GET',
      `/providers?limit=2&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items.map((item) => item.name)).toEqual(['p1', 'after']);
    expect((await call('GET', '/providers?limit=0')).status).toBe(400);
  });

  it('deletes, then answers 404', async () => {
    const { body: created } = await call('POST', '/providers', { name: 'doomed', baseURL: 'https://api.example.com/v1', apiKey: KEY });
    expect((await call('DELETE', `/providers/${created.id}`)).status).toBe(204);
    expect((await call('GET', `/providers/${created.id}`)).status).toBe(404);
    expect((await call('DELETE', `/providers/${created.id}`)).status).toBe(404);
    expect((await call('GET', '/providers/not-an-id')).status).toBe(404);
  });

  it("refuses to delete a provider (409 PROVIDER_IN_USE) while a live workflow's latest version uses it", async () => {
    const provider = async (name: string) =>
      (await call('POST', '/providers', { name, baseURL: 'https://api.example.com/v1', apiKey: KEY })).body.id as string;
    const [byVersion, byDelete] = [await provider('used-then-dropped'), await provider('used-until-deleted')];
    const withLlm = (providerId: string) => ({
      name: 'asks a model',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'ask', type: 'llm', config: { providerId, model: 'gpt-test' }, inputs: { prompt: { value: 'Hi' } } },
        { id: 'end', type: 'end', inputs: { answer: { ref: 'ask.text' } } },
      ],
      edges: [
        { source: 'start', target: 'ask' },
        { source: 'ask', target: 'end' },
      ],
    });
    const first = await call('POST', '/workflows', withLlm(byVersion));
    const second = await call('POST', '/workflows', withLlm(byDelete));
    expect([first.status, second.status]).toEqual([201, 201]);

    for (const id of [byVersion, byDelete]) {
      const refused = await call<{ code: string; message: string }>('DELETE', `/providers/${id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('PROVIDER_IN_USE');
      expect(refused.body.message).toContain('asks a model');
      expect((await call('GET', `/providers/${id}`)).status).toBe(200);
    }

    // A new version without the llm node frees the provider; so does deleting the workflow.
    const withoutLlm = {
      name: 'no model',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end' },
      ],
      edges: [{ source: 'start', target: 'end' }],
    };
    expect((await call('PUT', `/workflows/${first.body.id}`, withoutLlm)).status).toBe(200);
    expect((await call('DELETE', `/providers/${byVersion}`)).status).toBe(204);
    expect((await call('DELETE', `/workflows/${second.body.id}`)).status).toBe(204);
    expect((await call('DELETE', `/providers/${byDelete}`)).status).toBe(204);
  });

  it('deletes a provider that only workflows stored before `providerIds` existed name (missing = empty)', async () => {
    const { body: created } = await call('POST', '/providers', { name: 'legacy', baseURL: 'https://api.example.com/v1', apiKey: KEY });
    await insertRaw(stack.config, 'workflows', { name: 'Before providerIds', latestVersion: 1, toolsetIds: [], deletedAt: null });
    expect((await call('DELETE', `/providers/${created.id}`)).status).toBe(204);
  });

  it('never writes a key to the logs (debug level)', () => {
    expect(stack.logs.length).toBeGreaterThan(0);
    const logs = stack.logs.join('\n');
    expect(logs).toContain('provider created');
    expect(logs).not.toContain(KEY);
    expect(logs).not.toContain(OTHER_KEY);
  });
});
