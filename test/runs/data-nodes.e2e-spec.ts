import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, startRunStack, waitForRun } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

const TOKEN = 'tok-data-nodes-5c1e';

/** A plain HTTP API on loopback: GET /items/<id> answers the item and echoes the Authorization it got. */
async function startItemsApi(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    const id = /^\/items\/([\w-]+)$/.exec(request.url ?? '')?.[1];
    if (!id) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id, name: `item ${id}`, echo: request.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const inputSchema = {
  type: 'object',
  properties: { order: { type: 'object' }, token: { type: 'string', writeOnly: true } },
  required: ['order', 'token'],
};

/** start → set (shape the order) → code (total and first sku) → http (fetch the item) → end. */
function orderWorkflow(itemsUrl: string, path = '/items/{{js.result.first}}') {
  return {
    name: `order ${path}`,
    inputSchema,
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'shape',
        type: 'set',
        config: {
          fields: [
            { key: 'to', source: { ref: 'start.order.customer' } },
            { key: 'skus', source: { ref: 'start.order' }, pick: 'items[*].sku' },
            { key: 'lines', source: { ref: 'start.order.items' } },
          ],
        },
      },
      {
        id: 'js',
        type: 'code',
        inputs: { lines: { ref: 'shape.result.lines' }, skus: { ref: 'shape.result.skus' } },
        config: {
          code: 'return { total: inputs.lines.reduce((sum, line) => sum + line.qty, 0), first: inputs.skus[0] };',
          outputSchema: {
            type: 'object',
            required: ['total', 'first'],
            properties: { total: { type: 'number' }, first: { type: 'string' } },
          },
        },
      },
      {
        id: 'call',
        type: 'http',
        config: { url: `${itemsUrl}${path}`, headers: { Authorization: 'Bearer {{inputs.token}}' }, retries: 0 },
      },
      {
        id: 'end',
        type: 'end',
        inputs: { to: { ref: 'shape.result.to' }, total: { ref: 'js.result.total' }, item: { ref: 'call.body' } },
      },
    ],
    edges: [
      { source: 'start', target: 'shape' },
      { source: 'shape', target: 'js' },
      { source: 'js', target: 'call' },
      { source: 'call', target: 'end' },
    ],
  };
}

const order = {
  customer: 'ada@example.com',
  items: [
    { sku: 'A-1', qty: 2 },
    { sku: 'B-2', qty: 3 },
  ],
};

describe('set, code and http nodes in runs on the real worker', () => {
  let stack: TestStack;
  let items: Awaited<ReturnType<typeof startItemsApi>>;

  beforeAll(async () => {
    stack = await startRunStack();
    items = await startItemsApi();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await items?.close();
  });

  const run = async (workflowId: string) => {
    const started = await api<RunView>(stack.apiUrl, 'POST', `/workflows/${workflowId}/runs`, { inputs: { order, token: TOKEN } });
    expect(started.status).toBe(202);
    return waitForRun(stack.apiUrl, started.body.id);
  };

  it('shapes, computes and fetches, with the secret sent only to the API and shown nowhere', async () => {
    const workflowId = await createWorkflow(stack.apiUrl, orderWorkflow(items.url));
    const finished = await run(workflowId);
    expect(finished.status).toBe('succeeded');
    // The server echoed the credential: the outputs show *** in its place.
    expect(finished.outputs).toEqual({ to: 'ada@example.com', total: 5, item: { id: 'A-1', name: 'item A-1', echo: 'Bearer ***' } });
    expect(items.seen.at(-1)?.authorization).toBe(`Bearer ${TOKEN}`);
    const logs = await allLogs(stack.apiUrl, finished.id);
    expect(logs.map((item) => `${item.nodeId}:${item.status}`)).toEqual(
      expect.arrayContaining(['shape:succeeded', 'js:succeeded', 'call:succeeded', 'end:succeeded']),
    );
    const shown = JSON.stringify([finished, logs, (await api(stack.apiUrl, 'GET', `/runs/${finished.id}`)).body]);
    expect(shown).not.toContain(TOKEN);
    expect(finished.inputs).toMatchObject({ token: '***' });
  }, 60_000);

  it('fails the run with the node error codes: HTTP_STATUS for a 404, CODE_ERROR with the line for a throw', async () => {
    const missing = await run(await createWorkflow(stack.apiUrl, orderWorkflow(items.url, '/nothing/{{js.result.first}}')));
    expect(missing.status).toBe('failed');
    expect(missing.error).toMatchObject({ code: 'HTTP_STATUS', nodeId: 'call' });

    const throwing = orderWorkflow(items.url);
    (throwing.nodes[2].config as { code: string }).code = 'const a = 1;\nthrow new Error("bad order " + inputs.skus.length);';
    const thrown = await run(await createWorkflow(stack.apiUrl, throwing));
    expect(thrown.status).toBe('failed');
    expect(thrown.error).toMatchObject({ code: 'CODE_ERROR', nodeId: 'js' });
    expect(thrown.error?.message).toMatch(/bad order 2.*line 2/);
  }, 60_000);
});
