import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, numberedTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { insertRaw, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

interface Toolset {
  id: string;
  name: string;
  url: string;
  headers: Record<string, string>;
  transport: string;
  requestedTransport: string;
  timeoutMs: number | null;
  serverInfo: { name: string; version: string; protocolVersion: string };
  toolCount: number;
  toolsRefreshedAt: string;
  tools: { name: string; usable: boolean; inputs: { key: string; valueType: string; required: boolean }[] }[];
}

const API_KEY = 'k-7f3a9c1e5b';

describe('toolsets: create, read, update, delete', () => {
  let stack: LoggedApi;
  let paged: FixtureServer;
  let other: FixtureServer;

  beforeAll(async () => {
    stack = await startLoggedApi();
    // 25 numbered tools + the 5 basic ones, 10 per page, behind an API key header.
    paged = await startFixtureServer({
      name: 'paged-fixture',
      tools: [...numberedTools(25), ...basicTools()],
      pageSize: 10,
      auth: { header: 'x-api-key', value: API_KEY },
    });
    other = await startFixtureServer({ name: 'other-fixture', tools: basicTools() });
  });
  afterAll(async () => {
    await stack.close();
    await paged.close();
    await other.close();
  });

  const create = (body: unknown) =>
    api<Toolset & { code: string; errors: { path: string; code: string; message: string }[] }>(stack.url, 'POST', '/toolsets', body);

  it('refuses a wrong or missing credential with 422 MCP_AUTH_FAILED and the cause', async () => {
    const wrong = await create({ url: paged.url, headers: { 'x-api-key': 'nope' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('MCP_AUTH_FAILED');
    expect(wrong.body.errors[0]).toMatchObject({ path: '/url', code: 'MCP_AUTH_FAILED' });
    expect(wrong.body.errors[0].message).toMatch(/authentication refused.*credentials refused/);
    const missing = await create({ url: paged.url });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe('MCP_AUTH_FAILED');
  });

  it('creates with the right header: 201, every page of tools, typed inputs, header masked, nothing left open on the server', async () => {
    const res = await create({ name: 'Paged', url: paged.url, headers: { 'X-Api-Key': API_KEY }, timeoutMs: 5000 });
    expect(res.status).toBe(201);
    const toolset = res.body;
    expect(toolset).toMatchObject({
      name: 'Paged',
      url: paged.url,
      headers: { 'X-Api-Key': '***' },
      transport: 'streamable-http',
      requestedTransport: 'auto',
      timeoutMs: 5000,
      serverInfo: { name: 'paged-fixture', version: '1.0.0' },
      toolCount: 30,
    });
    expect(toolset.serverInfo.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(toolset.tools.map((tool) => tool.name)).toEqual([...numberedTools(25), ...basicTools()].map((tool) => tool.name));
    expect(toolset.tools.find((tool) => tool.name === 'echo')).toMatchObject({
      usable: true,
      inputs: [{ key: 'message', valueType: 'string', required: true }],
      outputSchema: { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] },
      annotations: { readOnlyHint: true, idempotentHint: true },
    });
    expect(JSON.stringify(toolset)).not.toContain(API_KEY);
    expect(paged.sessions()).toBe(0);
  });

  it('names a toolset after its server when no name is given', async () => {
    const res = await create({ url: other.url });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('other-fixture');
    expect(res.body.headers).toEqual({});
  });

  it('lists newest first in pages of {items, nextCursor}, summaries without tools', async () => {
    const first = await api<{ items: Toolset[]; nextCursor: string | null }>(stack.url, 'GET', '/toolsets?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.items[0]).toMatchObject({ name: 'other-fixture', toolCount: 5 });
    expect(first.body.items[0]).not.toHaveProperty('tools');
    const second = await api<{ items: Toolset[]; nextCursor: string | null }>(
      stack.url,
      'GET',
      `/toolsets?limit=1&cursor=${first.body.nextCursor}`,
    );
    expect(second.body.items[0]).toMatchObject({ name: 'Paged', headers: { 'X-Api-Key': '***' } });
    const all = await api<{ items: Toolset[]; nextCursor: string | null }>(stack.url, 'GET', '/toolsets');
    expect(all.body.nextCursor).toBeNull();
    expect(all.body.items.map((item) => item.name)).toEqual(['other-fixture', 'Paged']);
    expect((await api(stack.url, 'GET', '/toolsets?limit=0')).status).toBe(400);
  });

  it('gets one toolset; unknown and malformed ids are 404', async () => {
    const list = await api<{ items: Toolset[] }>(stack.url, 'GET', '/toolsets');
    const id = list.body.items[1].id;
    const res = await api<Toolset>(stack.url, 'GET', `/toolsets/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.toolCount).toBe(30);
    expect(res.body.tools).toHaveLength(30);
    for (const missing of ['0123456789abcdef01234567', 'not-an-id']) {
      const gone = await api(stack.url, 'GET', `/toolsets/${missing}`);
      expect(gone.status).toBe(404);
      expect(gone.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('patches the name and timeout without listing again; "***" keeps a stored header value', async () => {
    const created = await create({ name: 'To patch', url: paged.url, headers: { 'x-api-key': API_KEY } });
    const id = created.body.id;
    const renamed = await api<Toolset>(stack.url, 'PATCH', `/toolsets/${id}`, { name: 'Renamed', timeoutMs: 1234 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', timeoutMs: 1234, toolsRefreshedAt: created.body.toolsRefreshedAt });
    const cleared = await api<Toolset>(stack.url, 'PATCH', `/toolsets/${id}`, { timeoutMs: null });
    expect(cleared.body.timeoutMs).toBeNull();

    // Sending back what GET shows, plus a new header: the stored key is kept, tools are listed again.
    const kept = await api<Toolset>(stack.url, 'PATCH', `/toolsets/${id}`, { headers: { 'x-api-key': '***', 'x-trace': 'on' } });
    expect(kept.status).toBe(200);
    expect(kept.body.headers).toEqual({ 'x-api-key': '***', 'x-trace': '***' });
    expect(kept.body.toolsRefreshedAt > created.body.toolsRefreshedAt).toBe(true);

    const unknownMask = await api<{ errors: { path: string }[] }>(stack.url, 'PATCH', `/toolsets/${id}`, {
      headers: { authorization: '***' },
    });
    expect(unknownMask.status).toBe(400);
    expect(unknownMask.body.errors[0].path).toBe('/headers/authorization');

    const badKey = await api<{ code: string }>(stack.url, 'PATCH', `/toolsets/${id}`, { headers: { 'x-api-key': 'wrong' } });
    expect(badKey.status).toBe(422);
    expect(badKey.body.code).toBe('MCP_AUTH_FAILED');
    const unchanged = await api<Toolset>(stack.url, 'GET', `/toolsets/${id}`);
    expect(unchanged.body.headers).toEqual({ 'x-api-key': '***', 'x-trace': '***' });
  });

  it('re-lists the tools when the URL changes', async () => {
    const created = await create({ url: paged.url, headers: { 'x-api-key': API_KEY } });
    const moved = await api<Toolset>(stack.url, 'PATCH', `/toolsets/${created.body.id}`, { url: other.url, headers: {} });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ url: other.url, toolCount: 5, headers: {}, serverInfo: { name: 'other-fixture' } });
    expect((await api(stack.url, 'PATCH', '/toolsets/0123456789abcdef01234567', { name: 'x' })).status).toBe(404);
  });

  it('rejects unknown fields and malformed values in a PATCH with their paths', async () => {
    const created = await create({ url: other.url });
    const res = await api<{ errors: { path: string; code: string }[] }>(stack.url, 'PATCH', `/toolsets/${created.body.id}`, {
      nme: 'x',
      url: 'nope',
      timeoutMs: -1,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error) => error.path).sort()).toEqual(['/nme', '/timeoutMs', '/url']);
  });

  it('deletes: 204, then 404; 409 TOOLSET_IN_USE while a workflow uses it', async () => {
    const used = await create({ url: other.url, name: 'Used' });
    await insertRaw(stack.config, 'workflows', { name: 'Uses it', latestVersion: 1, toolsetIds: [used.body.id], deletedAt: null });
    const refused = await api<{ code: string; message: string }>(stack.url, 'DELETE', `/toolsets/${used.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('TOOLSET_IN_USE');
    expect(refused.body.message).toContain('Uses it');

    const free = await create({ url: other.url, name: 'Free' });
    await insertRaw(stack.config, 'workflows', {
      name: 'Deleted one',
      latestVersion: 2,
      toolsetIds: [free.body.id],
      deletedAt: new Date(),
    });
    expect((await api(stack.url, 'DELETE', `/toolsets/${free.body.id}`)).status).toBe(204);
    expect((await api(stack.url, 'GET', `/toolsets/${free.body.id}`)).status).toBe(404);
    expect((await api(stack.url, 'DELETE', `/toolsets/${free.body.id}`)).status).toBe(404);
  });
});
