import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpErrorCode } from '../errors.js';
import { serverEverythingStdioTarget, startServerEverything, type ServerEverything } from '../testing/server-everything.js';
import { connectMcp } from '../connect.js';
import type { McpConnection, ProgressUpdate } from '../types.js';

/** The same checks against the reference server over each real transport. */
function exerciseEverything(connect: () => Promise<McpConnection>, expectedTransport: string) {
  let connection: McpConnection;
  beforeAll(async () => {
    connection = await connect();
  });
  afterAll(() => connection.close());

  it('connects over the expected transport and lists every tool with typed inputs', async () => {
    expect(connection.transport).toBe(expectedTransport);
    expect(connection.serverInfo.name).toMatch(/everything/i);
    const tools = await connection.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'echo',
        'get-sum',
        'get-structured-content',
        'get-tiny-image',
        'get-resource-links',
        'trigger-long-running-operation',
      ]),
    );
    expect(tools.every((tool) => tool.usable)).toBe(true);
    const sum = tools.find((tool) => tool.name === 'get-sum')!;
    expect(sum.inputs.map((f) => [f.key, f.valueType, f.required])).toEqual([
      ['a', 'number', true],
      ['b', 'number', true],
    ]);
    const structured = tools.find((tool) => tool.name === 'get-structured-content')!;
    expect(structured.inputs[0]).toMatchObject({ key: 'location', valueType: 'string', enum: ['New York', 'Chicago', 'Los Angeles'] });
    expect(structured.outputs?.map((f) => f.key)).toEqual(['temperature', 'conditions', 'humidity']);
  });

  it('calls tools: text, structured content checked against its outputSchema, images, resource links', async () => {
    expect((await connection.callTool('echo', { message: 'hello' })).text).toBe('Echo: hello');
    expect((await connection.callTool('get-sum', { a: 2, b: 40 })).text).toContain('42');
    const weather = await connection.callTool('get-structured-content', { location: 'Chicago' });
    expect(weather.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    const image = await connection.callTool('get-tiny-image', {});
    expect(image.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'image', mimeType: 'image/png', data: expect.any(String) })]),
    );
    const links = await connection.callTool('get-resource-links', { count: 2 });
    expect(links.content.filter((block) => block.type === 'resource_link')).toEqual([
      expect.objectContaining({
        uri: expect.any(String),
        name: 'Blob Resource 1',
        mimeType: expect.any(String),
        description: expect.any(String),
      }),
      expect.objectContaining({ name: 'Text Resource 2', mimeType: 'text/plain' }),
    ]);
  });

  it('rejects arguments its schema refuses before sending them', async () => {
    await expect(connection.callTool('get-structured-content', { location: 'Paris' })).rejects.toMatchObject({
      code: McpErrorCode.INPUT_INVALID,
      errors: [{ path: 'location', message: expect.stringContaining('allowed values') }],
    });
  });

  it('reports progress of a long-running operation', async () => {
    const updates: ProgressUpdate[] = [];
    const result = await connection.callTool(
      'trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onProgress: (update) => updates.push(update) },
    );
    expect(result.text).toContain('completed');
    // The SDK handles notifications a microtask after responses, so the final update, sent just
    // before the result, may be dropped: the earlier ones must arrive, in order.
    expect(updates.map((u) => [u.progress, u.total]).slice(0, 2)).toEqual([
      [1, 3],
      [2, 3],
    ]);
  });
}

describe.each([
  ['Streamable HTTP', 'streamableHttp', 'streamable-http'],
  ['legacy HTTP+SSE (auto fallback)', 'sse', 'sse'],
] as const)('server-everything over %s', (_name, mode, expectedTransport) => {
  let server: ServerEverything;
  beforeAll(async () => {
    server = await startServerEverything(mode);
  });
  afterAll(() => server.close());
  exerciseEverything(() => connectMcp({ url: server.url }), expectedTransport);
});

describe('server-everything over stdio', () => {
  exerciseEverything(() => connectMcp(serverEverythingStdioTarget()), 'stdio');
});
