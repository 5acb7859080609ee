import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpErrorCode } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { basicTools, numberedTools, trickySchemaTools } from '../testing/fixture-tools.js';
import { connectMcp, listToolset } from '../connect.js';
import type { McpConnection, ToolSnapshot } from '../types.js';

describe('listTools', () => {
  let paged: FixtureServer;
  let tricky: FixtureServer;
  let connection: McpConnection;
  let tools: Map<string, ToolSnapshot>;

  beforeAll(async () => {
    [paged, tricky] = await Promise.all([
      startFixtureServer({ tools: numberedTools(25), pageSize: 10 }),
      // Pages of two: the uncompilable tools sit on pages between good ones.
      startFixtureServer({ tools: [...trickySchemaTools(), ...basicTools()], pageSize: 2 }),
    ]);
    connection = await connectMcp({ url: tricky.url });
    tools = new Map((await connection.listTools()).map((tool) => [tool.name, tool]));
  });
  afterAll(async () => {
    await connection.close();
    await Promise.all([paged.close(), tricky.close()]);
  });

  it('follows nextCursor across every page', async () => {
    const listing = await listToolset({ url: paged.url });
    expect(listing.tools.map((tool) => tool.name)).toEqual(numberedTools(25).map((tool) => tool.name));
    expect(listing.transport).toBe('streamable-http');
    expect(listing.serverInfo.name).toBe('mcpflow-fixture');
    expect(paged.sessions()).toBe(0); // listToolset closed (and terminated) its session
  });

  it('marks a tool whose schema cannot compile unusable, with the reason, and keeps every other tool', () => {
    expect(tools.size).toBe(trickySchemaTools().length + basicTools().length);
    expect(tools.get('broken_output')).toMatchObject({
      usable: false,
      unusableReason: expect.stringMatching(/^outputSchema cannot be compiled \(2020-12\)/),
    });
    expect(tools.get('remote_ref')).toMatchObject({
      usable: false,
      unusableReason: expect.stringContaining("can't resolve reference https://schemas.example.invalid/config.json"),
    });
    const usable = [...tools.values()].filter((tool) => tool.usable).map((tool) => tool.name);
    expect(usable).toEqual(expect.arrayContaining(['refs_2020', 'legacy_draft07', 'wrong_output', 'echo', 'add', 'slow', 'fail', 'rich']));
    expect(usable).toHaveLength(tools.size - 2);
  });

  it('snapshots name, description, schemas, annotations and typed inputs/outputs', () => {
    const echo = tools.get('echo')!;
    expect(echo).toMatchObject({
      description: 'Returns its message.',
      annotations: { readOnlyHint: true, idempotentHint: true },
      inputs: [
        {
          key: 'message',
          label: 'message',
          description: 'What to echo',
          valueType: 'string',
          required: true,
          schema: { type: 'string', description: 'What to echo' },
        },
      ],
      outputs: [{ key: 'echo', valueType: 'string', required: true }],
      usable: true,
    });
    expect(echo.inputSchema).toEqual(basicTools()[0].inputSchema);
    expect(tools.get('refs_2020')!.inputs.find((f) => f.key === 'addresses')?.valueType).toBe('array<object>');
  });

  it('validates later calls against the listed schemas, each in its own dialect', async () => {
    await expect(connection.callTool('legacy_draft07', { point: { x: 1 }, pair: ['a', 1, 'extra'] })).rejects.toMatchObject({
      code: McpErrorCode.INPUT_INVALID,
      errors: expect.arrayContaining([
        { path: 'point.y', message: "must have required property 'y'" },
        { path: 'pair', message: 'must NOT have more than 2 items' },
      ]),
    });
    await expect(
      connection.callTool('refs_2020', { address: { street: 'Main' }, mode: 'slow', email: 'not-an-email', pair: ['a', 'b'] }),
    ).rejects.toMatchObject({
      errors: expect.arrayContaining([
        { path: 'mode', message: 'must be equal to constant' },
        { path: 'email', message: 'must match format "email"' },
        { path: 'pair[1]', message: 'must be number' },
      ]),
    });
    const accepted = await connection.callTool('refs_2020', {
      address: { street: 'Main' },
      mode: 'safe',
      nickname: null,
      addresses: [{ street: 'A', city: 'B' }],
    });
    expect(JSON.parse(accepted.text)).toMatchObject({ mode: 'safe', nickname: null });
  });

  it('refuses to call a tool whose input schema cannot compile, without sending', async () => {
    await expect(connection.callTool('remote_ref', { config: {} })).rejects.toMatchObject({
      code: McpErrorCode.INPUT_INVALID,
      message: expect.stringContaining('cannot be compiled'),
    });
    expect(tricky.calls('remote_ref')).toBe(0);
  });
});
