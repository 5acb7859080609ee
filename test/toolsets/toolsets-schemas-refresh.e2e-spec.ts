import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, trickySchemaTools, type FixtureServer, type FixtureTool } from '#mcp/testing';
import { api } from '../support/http.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

interface Field {
  key: string;
  label: string;
  description?: string;
  valueType: string;
  required: boolean;
  enum?: unknown[];
  default?: unknown;
  schema: Record<string, unknown>;
}
interface Tool {
  name: string;
  description?: string;
  usable: boolean;
  unusableReason?: string;
  inputs: Field[];
  inputSchema: Record<string, unknown>;
}
interface Toolset {
  id: string;
  toolCount: number;
  toolsRefreshedAt: string;
  tools: Tool[];
}
interface Refreshed {
  toolset: Toolset;
  added: string[];
  removed: string[];
  changed: string[];
}

const typesOf = (tool: Tool | undefined) => Object.fromEntries((tool?.inputs ?? []).map((field) => [field.key, field.valueType]));

describe('toolsets: tricky schemas become typed inputs', () => {
  let stack: LoggedApi;
  let tricky: FixtureServer;
  let toolset: Toolset;

  beforeAll(async () => {
    [stack, tricky] = await Promise.all([startLoggedApi(), startFixtureServer({ name: 'tricky', tools: trickySchemaTools() })]);
    const res = await api<Toolset>(stack.url, 'POST', '/toolsets', { url: tricky.url });
    expect(res.status).toBe(201);
    toolset = res.body;
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), tricky?.close()]);
  });

  it('types $ref/$defs, unions, type arrays, enums, defaults, tuples and nested arrays as SPEC §2 says', () => {
    const refs = toolset.tools.find((tool) => tool.name === 'refs_2020');
    expect(refs?.usable).toBe(true);
    expect(typesOf(refs)).toEqual({
      address: 'object',
      addresses: 'array<object>',
      nickname: 'string',
      count: 'integer',
      mode: 'string',
      idOrName: 'any',
      ratio: 'number',
      tag: 'string',
      email: 'string',
      pair: 'array<any>',
      matrix: 'array<array<number>>',
      anything: 'any',
    });
    const field = (key: string) => refs?.inputs.find((input) => input.key === key);
    expect(field('address')).toMatchObject({ required: true, description: 'Where to deliver' });
    // A field's schema travels with the definitions it refers to.
    expect(field('address')?.schema).toMatchObject({ $ref: '#/$defs/Address', $defs: { Address: { required: ['street'] } } });
    expect(field('count')).toMatchObject({ label: 'How many', default: 1, required: false });
    expect(field('nickname')).toMatchObject({ default: null });
    expect(field('mode')).toMatchObject({ required: true, enum: ['fast', 'safe'] });
    expect(field('tag')).toMatchObject({ enum: ['red', 'green'] });
  });

  it('reads draft-07 schemas in their own dialect', () => {
    const legacy = toolset.tools.find((tool) => tool.name === 'legacy_draft07');
    expect(legacy?.usable).toBe(true);
    expect(typesOf(legacy)).toEqual({ point: 'object', pair: 'array<any>' });
    expect(legacy?.inputs.find((input) => input.key === 'point')?.schema).toMatchObject({
      $ref: '#/definitions/Point',
      definitions: { Point: { type: 'object' } },
    });
  });

  it('marks the tools whose schema cannot compile unusable, with the reason; the rest stay usable', () => {
    const unusable = toolset.tools.filter((tool) => !tool.usable);
    expect(unusable.map((tool) => tool.name).sort()).toEqual(['broken_output', 'remote_ref']);
    expect(unusable.find((tool) => tool.name === 'broken_output')?.unusableReason).toMatch(/^outputSchema cannot be compiled/);
    expect(unusable.find((tool) => tool.name === 'remote_ref')?.unusableReason).toContain(
      "can't resolve reference https://schemas.example.invalid/config.json",
    );
    expect(toolset.tools.filter((tool) => tool.usable)).toHaveLength(toolset.toolCount - 2);
  });

  it('stores the schemas byte-exact ($ref, $defs, $schema survive the database)', async () => {
    const stored = await api<Toolset>(stack.url, 'GET', `/toolsets/${toolset.id}`);
    expect(stored.body.tools).toEqual(toolset.tools);
    const legacy = stored.body.tools.find((tool) => tool.name === 'legacy_draft07');
    expect(legacy?.inputSchema).toEqual(trickySchemaTools().find((tool) => tool.name === 'legacy_draft07')?.inputSchema);
    const raw = (await rawDatabaseDump(stack.config)).toolsets as { tools: { name: string; snapshot: string }[] }[];
    expect(raw).toHaveLength(1);
    expect(JSON.parse(raw[0].tools.find((tool) => tool.name === 'refs_2020')?.snapshot ?? '{}').inputSchema.$defs.Address).toBeDefined();
  });

  it('refuses an ad-hoc call of an unusable tool with 422 TOOL_UNUSABLE and the reason', async () => {
    const res = await api<{ code: string; message: string }>(stack.url, 'POST', `/toolsets/${toolset.id}/tools/remote_ref/call`, {
      arguments: { config: {} },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('TOOL_UNUSABLE');
    expect(res.body.message).toContain("can't resolve reference");
    expect(tricky.calls('remote_ref')).toBe(0);
  });

  it('checks nested typed arguments with JSON-pointer paths', async () => {
    const res = await api<{ errors: { path: string }[] }>(stack.url, 'POST', `/toolsets/${toolset.id}/tools/refs_2020/call`, {
      arguments: { address: { city: 'Oslo' }, mode: 'slow', addresses: [{ street: 1 }] },
    });
    expect(res.status).toBe(400);
    expect([...new Set(res.body.errors.map((error) => error.path))].sort()).toEqual([
      '/arguments/address/street',
      '/arguments/addresses/0/street',
      '/arguments/mode',
    ]);
  });
});

describe('toolsets: refresh against a server whose tool list changes', () => {
  let stack: LoggedApi;
  let server: FixtureServer;
  // The fixture lists this very array on every new session, so editing it changes what the next listing sees.
  const tools: FixtureTool[] = basicTools();

  beforeAll(async () => {
    [stack, server] = await Promise.all([startLoggedApi(), startFixtureServer({ name: 'changing', tools })]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('returns the new snapshot with the added, removed and changed tool names', async () => {
    const created = await api<Toolset>(stack.url, 'POST', '/toolsets', { url: server.url });
    expect(created.body.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'fail', 'rich']);

    tools.splice(
      tools.findIndex((tool) => tool.name === 'fail'),
      1,
    );
    tools.splice(
      tools.findIndex((tool) => tool.name === 'rich'),
      1,
    );
    const echo = tools.find((tool) => tool.name === 'echo') as FixtureTool;
    echo.description = 'Returns its message, now documented differently.';
    const add = tools.find((tool) => tool.name === 'add') as FixtureTool;
    add.inputSchema = { ...add.inputSchema, properties: { a: { type: 'number' }, b: { type: 'number' }, c: { type: 'number' } } };
    tools.push({
      name: 'multiply',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      handler: () => ({ content: [] }),
    });
    tools.push({ name: 'another', inputSchema: { type: 'object' }, handler: () => ({ content: [] }) });

    const res = await api<Refreshed>(stack.url, 'POST', `/toolsets/${created.body.id}/refresh`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: ['another', 'multiply'], removed: ['fail', 'rich'], changed: ['add', 'echo'] });
    expect(res.body.toolset.tools.map((tool) => tool.name)).toEqual(['echo', 'add', 'slow', 'multiply', 'another']);
    expect(res.body.toolset.toolCount).toBe(5);
    expect(res.body.toolset.toolsRefreshedAt > created.body.toolsRefreshedAt).toBe(true);
    expect(typesOf(res.body.toolset.tools.find((tool) => tool.name === 'add'))).toEqual({ a: 'number', b: 'number', c: 'number' });

    const stored = await api<Toolset>(stack.url, 'GET', `/toolsets/${created.body.id}`);
    expect(stored.body.tools).toEqual(res.body.toolset.tools);
    const again = await api<Refreshed>(stack.url, 'POST', `/toolsets/${created.body.id}/refresh`);
    expect(again.body).toMatchObject({ added: [], removed: [], changed: [] });
  });

  it('answers 404 for an unknown toolset and 422 when the server is gone, keeping the old snapshot', async () => {
    expect((await api(stack.url, 'POST', '/toolsets/0123456789abcdef01234567/refresh')).status).toBe(404);
    const created = await api<Toolset>(stack.url, 'POST', '/toolsets', { url: server.url, name: 'will lose its server' });
    await server.close();
    const res = await api<{ code: string }>(stack.url, 'POST', `/toolsets/${created.body.id}/refresh`);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('MCP_UNREACHABLE');
    const kept = await api<Toolset>(stack.url, 'GET', `/toolsets/${created.body.id}`);
    expect(kept.body.tools).toEqual(created.body.tools);
  });
});
