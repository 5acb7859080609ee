import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startServerEverything, type ServerEverything } from '#mcp/testing';
import { api } from '../support/http.js';
import { startLoggedApi, type LoggedApi } from '../support/toolsets.js';

interface Tool {
  name: string;
  usable: boolean;
  inputs: { key: string; valueType: string; required: boolean; enum?: unknown[] }[];
  outputs?: { key: string; valueType: string }[];
  annotations?: Record<string, unknown>;
}
interface Toolset {
  id: string;
  transport: string;
  requestedTransport: string;
  serverInfo: { name: string; version: string; protocolVersion: string };
  toolCount: number;
  tools: Tool[];
}
interface CallResult {
  tool: string;
  isError: boolean;
  text: string;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  transport: string;
  durationMs: number;
}
interface ErrorBody {
  code: string;
  message: string;
  errors: { path: string; code: string; message: string }[];
}

describe('toolsets against server-everything (Streamable HTTP and SSE-only)', () => {
  let stack: LoggedApi;
  let streamable: ServerEverything;
  let sseOnly: ServerEverything;

  beforeAll(async () => {
    [stack, streamable, sseOnly] = await Promise.all([
      startLoggedApi(),
      startServerEverything('streamableHttp'),
      startServerEverything('sse'),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([stack?.close(), streamable?.close(), sseOnly?.close()]);
  });

  let streamableId: string;
  let sseId: string;

  it('creates a toolset on the Streamable HTTP endpoint: transport streamable-http, every tool typed', async () => {
    const res = await api<Toolset>(stack.url, 'POST', '/toolsets', { name: 'everything', url: streamable.url });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ transport: 'streamable-http', requestedTransport: 'auto' });
    expect(res.body.serverInfo.name).toMatch(/everything/i);
    expect(res.body.toolCount).toBe(res.body.tools.length);
    const echo = res.body.tools.find((tool) => tool.name === 'echo');
    expect(echo).toMatchObject({ usable: true, inputs: [{ key: 'message', valueType: 'string', required: true }] });
    const structured = res.body.tools.find((tool) => tool.name === 'get-structured-content');
    expect(structured?.inputs).toEqual([
      expect.objectContaining({ key: 'location', valueType: 'string', required: true, enum: ['New York', 'Chicago', 'Los Angeles'] }),
    ]);
    expect(structured?.outputs?.map((output) => [output.key, output.valueType])).toEqual([
      ['temperature', 'number'],
      ['conditions', 'string'],
      ['humidity', 'number'],
    ]);
    expect(structured?.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(res.body.tools.every((tool) => tool.usable)).toBe(true);
    streamableId = res.body.id;
  });

  it('creates a toolset on the SSE-only server with transport auto: it falls back and says sse', async () => {
    const res = await api<Toolset>(stack.url, 'POST', '/toolsets', { url: sseOnly.url });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ transport: 'sse', requestedTransport: 'auto' });
    expect(res.body.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-structured-content']));
    sseId = res.body.id;
  });

  it('previews without saving', async () => {
    const before = await api<{ items: unknown[] }>(stack.url, 'GET', '/toolsets');
    const res = await api<Toolset & { id?: string }>(stack.url, 'POST', '/toolsets/preview', {
      url: streamable.url,
      transport: 'streamable-http',
    });
    expect(res.status).toBe(200);
    expect(res.body.id).toBeUndefined();
    expect(res.body).toMatchObject({ transport: 'streamable-http', requestedTransport: 'streamable-http' });
    expect(res.body.tools.length).toBeGreaterThan(5);
    const after = await api<{ items: unknown[] }>(stack.url, 'GET', '/toolsets');
    expect(after.body.items).toHaveLength(before.body.items.length);
  });

  it('calls echo ad hoc over both transports', async () => {
    for (const [id, transport] of [
      [streamableId, 'streamable-http'],
      [sseId, 'sse'],
    ]) {
      const res = await api<CallResult>(stack.url, 'POST', `/toolsets/${id}/tools/echo/call`, { arguments: { message: 'hello mcp' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ tool: 'echo', isError: false, text: 'Echo: hello mcp', transport });
      expect(res.body.content).toEqual([{ type: 'text', text: 'Echo: hello mcp' }]);
      expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    }
  });

  it('calls get-structured-content ad hoc: structuredContent as the server sent it', async () => {
    const res = await api<CallResult>(stack.url, 'POST', `/toolsets/${streamableId}/tools/get-structured-content/call`, {
      arguments: { location: 'Chicago' },
    });
    expect(res.status).toBe(200);
    expect(res.body.isError).toBe(false);
    expect(res.body.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
    expect(JSON.parse(res.body.text)).toEqual(res.body.structuredContent);
  });

  it('checks typed arguments before calling: 400 with the path of each problem', async () => {
    const wrongType = await api<ErrorBody>(stack.url, 'POST', `/toolsets/${streamableId}/tools/echo/call`, { arguments: { message: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.code).toBe('MCP_INPUT_INVALID');
    expect(wrongType.body.errors).toEqual([
      expect.objectContaining({ path: '/arguments/message', message: expect.stringMatching(/string/) }),
    ]);

    const notInEnum = await api<ErrorBody>(stack.url, 'POST', `/toolsets/${streamableId}/tools/get-structured-content/call`, {
      arguments: { location: 'Paris' },
    });
    expect(notInEnum.status).toBe(400);
    expect(notInEnum.body.errors[0]).toMatchObject({ path: '/arguments/location', message: expect.stringContaining('Chicago') });

    const missing = await api<ErrorBody>(stack.url, 'POST', `/toolsets/${streamableId}/tools/echo/call`, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].path).toBe('/arguments/message');

    const unknownField = await api<ErrorBody>(stack.url, 'POST', `/toolsets/${streamableId}/tools/echo/call`, {
      arguments: { message: 'x' },
      args: {},
    });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.errors).toEqual([expect.objectContaining({ path: '/args', code: 'UNKNOWN_FIELD' })]);
  });

  it('answers 404 for an unknown tool or toolset', async () => {
    const tool = await api<ErrorBody>(stack.url, 'POST', `/toolsets/${streamableId}/tools/no-such-tool/call`, { arguments: {} });
    expect(tool.status).toBe(404);
    expect(tool.body.message).toContain('no-such-tool');
    expect((await api(stack.url, 'POST', '/toolsets/0123456789abcdef01234567/tools/echo/call', { arguments: {} })).status).toBe(404);
  });

  it('refreshes without changes: empty diff', async () => {
    const res = await api<{ toolset: Toolset; added: string[]; removed: string[]; changed: string[] }>(
      stack.url,
      'POST',
      `/toolsets/${streamableId}/refresh`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ added: [], removed: [], changed: [] });
    expect(res.body.toolset.transport).toBe('streamable-http');
  });
});

describe("scripts/server-everything.mjs (the docs' walkthroughs' MCP server)", () => {
  let stack: LoggedApi;
  beforeAll(async () => {
    stack = await startLoggedApi();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('serves server-everything on 127.0.0.1 at the URL it prints, and stops with its child on SIGTERM', async () => {
    const script = fileURLToPath(new URL('../../scripts/server-everything.mjs', import.meta.url));
    const launcher = spawn(process.execPath, [script, 'sse', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        launcher.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
        launcher.once('exit', (code) => reject(new Error(`launcher exited with ${code}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sse$/);
      const res = await api<Toolset>(stack.url, 'POST', '/toolsets/preview', { url });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ transport: 'sse' });
      expect(res.body.tools.map((tool) => tool.name)).toContain('echo');
      launcher.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(fetch(url, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    } finally {
      launcher.kill('SIGKILL');
    }
  }, 30_000);
});
