import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { McpError, McpErrorCode } from '../errors.js';
import { startFixtureServer, type FixtureServer } from '../testing/fixture-server.js';
import { basicTools, TINY_PNG_BASE64, trickySchemaTools } from '../testing/fixture-tools.js';
import { waitUntil } from '../testing/test-helpers.js';
import { connectMcp } from '../connect.js';
import type { McpConnection, ProgressUpdate } from '../types.js';
import { toolErrorOf } from './tool-result.js';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: McpError) => error,
  );

describe.each(['streamable-http', 'sse'] as const)('callTool over %s', (transport) => {
  let server: FixtureServer;
  let connection: McpConnection;

  beforeAll(async () => {
    server = await startFixtureServer({ tools: [...basicTools(), ...trickySchemaTools()] });
    connection = await connectMcp({ url: transport === 'sse' ? server.sseUrl : server.url, transport });
    await connection.listTools();
  });
  afterAll(async () => {
    await connection.close();
    await server.close();
  });

  it('returns a normalised result: text, structuredContent, content', async () => {
    expect(await connection.callTool('echo', { message: 'hi' })).toEqual({
      isError: false,
      text: 'hi',
      structuredContent: { echo: 'hi' },
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('keeps images, embedded resources and resource links with their metadata', async () => {
    const result = await connection.callTool('rich', {});
    expect(result.text).toBe('rich content');
    expect(result.content).toEqual([
      { type: 'text', text: 'rich content' },
      {
        type: 'image',
        data: TINY_PNG_BASE64,
        mimeType: 'image/png',
        annotations: { audience: ['user'], priority: 0.5 },
        _meta: { source: 'fixture' },
      },
      { type: 'resource', resource: { uri: 'fixture://notes/1', mimeType: 'text/plain', text: 'note one', _meta: { rev: 3 } } },
      expect.objectContaining({
        type: 'resource_link',
        title: 'Quarterly report',
        size: 1234,
        annotations: { lastModified: '2025-01-01T00:00:00Z' },
      }),
    ]);
  });

  it('returns an isError result as a value; toolErrorOf makes it MCP_TOOL_ERROR', async () => {
    const result = await connection.callTool('fail', { reason: 'disk full' });
    expect(result).toMatchObject({ isError: true, text: 'disk full' });
    expect(toolErrorOf('fail', result)).toMatchObject({ code: McpErrorCode.TOOL_ERROR, message: expect.stringContaining('disk full') });
    expect(toolErrorOf('echo', await connection.callTool('echo', { message: 'x' }))).toBeUndefined();
  });

  it('validates arguments before sending: every problem with its path, and nothing reaches the server', async () => {
    const before = server.calls('add');
    const error = await failure(connection.callTool('add', { a: 'one' }));
    expect(error).toMatchObject({ code: McpErrorCode.INPUT_INVALID });
    expect(error?.errors).toEqual(
      expect.arrayContaining([
        { path: 'a', message: 'must be number' },
        { path: 'b', message: "must have required property 'b'" },
      ]),
    );
    await expect(
      connection.callTool('echo', { message: 1 }, { inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }),
    ).rejects.toMatchObject({
      errors: [{ path: 'message', message: 'must be string' }],
    });
    expect(server.calls('add')).toBe(before);
  });

  it('checks structuredContent against the outputSchema', async () => {
    await expect(connection.callTool('wrong_output', {})).rejects.toMatchObject({
      code: McpErrorCode.PROTOCOL_ERROR,
      message: expect.stringContaining('sum must be number'),
    });
  });

  it('lets progress reset the timeout', async () => {
    const updates: ProgressUpdate[] = [];
    const result = await connection.callTool('slow', { steps: 5, stepMs: 60 }, { timeoutMs: 200, onProgress: (u) => updates.push(u) });
    expect(result.text).toBe('done after 5 steps');
    expect(updates.length).toBeGreaterThanOrEqual(4);
    expect(updates[0]).toEqual({ progress: 1, total: 5, message: 'step 1' });
  });

  it('times out without progress (MCP_TIMEOUT) and tells the server', async () => {
    const cancellations = server.cancellations();
    const started = Date.now();
    const error = await failure(connection.callTool('slow', { steps: 1, stepMs: 5_000, progress: false }, { timeoutMs: 150 }));
    expect(error).toMatchObject({ code: McpErrorCode.TIMEOUT, message: expect.stringContaining('no response or progress within 150 ms') });
    expect(Date.now() - started).toBeLessThan(1_500);
    await waitUntil(() => server.cancellations() === cancellations + 1, 2_000, 'notifications/cancelled');
  });

  it('caps progress-extended calls at maxTotalTimeoutMs, and tells the server', async () => {
    const cancellations = server.cancellations();
    const started = Date.now();
    const error = await failure(connection.callTool('slow', { steps: 40, stepMs: 40 }, { timeoutMs: 200, maxTotalTimeoutMs: 400 }));
    expect(error).toMatchObject({ code: McpErrorCode.TIMEOUT, message: expect.stringContaining('maximum total time of 400 ms') });
    expect(Date.now() - started).toBeLessThan(1_200);
    await waitUntil(() => server.cancellations() === cancellations + 1, 2_000, 'notifications/cancelled');
  });

  it('cancels on abort (MCP_CANCELED, not a timeout) and the server receives notifications/cancelled', async () => {
    const cancellations = server.cancellations();
    const controller = new AbortController();
    const call = connection.callTool(
      'slow',
      { steps: 50, stepMs: 40 },
      { signal: controller.signal, onProgress: () => controller.abort() },
    );
    await expect(call).rejects.toMatchObject({ code: McpErrorCode.CANCELED });
    await waitUntil(() => server.cancellations() === cancellations + 1, 2_000, 'notifications/cancelled');
  });

  it('sends nothing for an already-aborted signal', async () => {
    const calls = server.calls('echo');
    await expect(connection.callTool('echo', { message: 'x' }, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: McpErrorCode.CANCELED,
    });
    expect(server.calls('echo')).toBe(calls);
  });

  it('leaves nothing on a signal shared by many finished calls (aborting it later cancels nothing)', async () => {
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await connection.callTool('echo', { message: String(i) }, { signal: controller.signal });
    const cancellations = server.cancellations();
    controller.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.cancellations()).toBe(cancellations);
  });

  it('reports an unknown tool as a protocol error', async () => {
    await expect(connection.callTool('no_such_tool', {})).rejects.toMatchObject({
      code: McpErrorCode.PROTOCOL_ERROR,
      message: expect.stringContaining('Unknown tool'),
    });
  });
});
