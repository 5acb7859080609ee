import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api } from '../support/http.js';
import { startStack, type TestStack } from '../support/stack.js';

const PAGE = 'internal admin page: db password hunter2';

/** A service on loopback that is not an MCP server: answers every request with `status` and a page. */
async function startService(status: number, type: string, body: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    request.resume();
    response.writeHead(status, { 'content-type': type }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('a toolset URL cannot be used to read other services', () => {
  let stack: TestStack;
  const services: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await Promise.all(services.map((service) => service.close()));
  });

  it.each([
    [404, 'text/html'],
    [400, 'text/plain'],
    [200, 'text/plain'],
  ])(
    'preview and register of a service answering %i (%s) name the failure, not the body',
    async (status, type) => {
      const service = await startService(status, type, PAGE);
      services.push(service);
      for (const path of ['/toolsets/preview', '/toolsets']) {
        const res = await api<{ code: string; message: string }>(stack.apiUrl, 'POST', path, { url: service.url });
        expect({ path, status: res.status }).toEqual({ path, status: 422 });
        expect(res.body.code).toMatch(/^MCP_/);
        expect(JSON.stringify(res.body)).not.toContain('hunter2');
      }
    },
    60_000,
  );

  it("still quotes an MCP server's own JSON-RPC error message", async () => {
    const said = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'this server wants a session' }, id: null });
    const service = await startService(400, 'application/json', said);
    services.push(service);
    const res = await api<{ code: string; message: string }>(stack.apiUrl, 'POST', '/toolsets/preview', { url: service.url });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('this server wants a session');
  }, 60_000);
});
