import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOutboundFetch } from '#mcp';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { chain, createFakeToolbox, createRecordingClock, endNodeDef, ref, startNodeDef } from '../engine/testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import { validateWorkflow } from '../engine/validate-workflow.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { HTTP_FETCH_EXTRA, RUN_SECRETS_EXTRA } from './http/http-port.js';
import { retryAfterMs } from './http/send-request.js';

const registry = createDefaultNodeRegistry();
const toolbox = createFakeToolbox({});
const outboundFetch = createOutboundFetch();
const TOKEN = 'sk-live-0123456789abcdef';
const requests: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = [];
let server: Server;
let base: string;
let throttled = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url, headers: request.headers, body });
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      if (path === '/throttled' && throttled++ === 0) {
        response.writeHead(429, { 'retry-after': '1' }).end('slow down');
      } else if (path.startsWith('/echo') || path === '/throttled') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ method: request.method, url: request.url, auth: request.headers.authorization ?? null, body }));
      } else if (path === '/to-metadata') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (path === '/missing') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end(`no such thing for ${request.headers.authorization}`);
      } else {
        response.writeHead(500).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  outboundFetch.close();
  await new Promise((resolve) => server.close(resolve));
});

const inputSchema = { type: 'object', properties: { id: { type: 'string' }, token: { type: 'string', writeOnly: true } } };

function workflowWith(node: NodeDefinition): WorkflowDefinition {
  return {
    name: 'http',
    inputSchema,
    nodes: [startNodeDef(), node, endNodeDef({ status: ref(`${node.id}.status`), body: ref(`${node.id}.body`) })],
    edges: chain('start', node.id, 'end'),
  };
}

async function run(config: Record<string, unknown>, clock = createRecordingClock()) {
  const node: NodeDefinition = { id: 'call', type: 'http', config, inputs: {} };
  const store = createInMemoryRunStore();
  const runId = `run-${Math.random()}`;
  const services = {
    tools: toolbox.invoker,
    catalog: toolbox.catalog,
    clock,
    extras: { [HTTP_FETCH_EXTRA]: outboundFetch, [RUN_SECRETS_EXTRA]: async () => ({ token: TOKEN }) },
  };
  // As the worker does: the run's own inputs show secret inputs masked.
  const outcome = await runWorkflow({ runId, workflow: workflowWith(node), inputs: { id: '42', token: '***' }, registry, services, store });
  return { outcome, records: store.records(runId), clock };
}

describe('http node', () => {
  it('sends method, templated URL, query, secret header and JSON body; parses the JSON answer', async () => {
    const { outcome, records } = await run({
      method: 'POST',
      url: `${base}/echo/{{start.id}}`,
      query: { q: 'item {{start.id}}' },
      headers: { Authorization: 'Bearer {{inputs.token}}' },
      body: { type: 'json', value: { ref: 'start.id' } },
    });
    expect(outcome.error).toBeUndefined();
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { status: 200 } });
    const body = outcome.outputs.body as Record<string, unknown>;
    expect(body).toMatchObject({ method: 'POST', url: '/echo/42?q=item+42', body: '"42"' });
    expect(requests.at(-1)?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(requests.at(-1)?.headers['content-type']).toBe('application/json');
    // The server echoed the credential: the node's answer, its record and its details show it masked.
    expect(body.auth).toBe('Bearer ***');
    expect(JSON.stringify(records)).not.toContain(TOKEN);
    expect(records[1].details).toEqual({ method: 'POST', url: `${base}/echo/42?q=item+42`, status: 200, attempts: 1 });
  });

  it('sends form bodies', async () => {
    const { outcome } = await run({ method: 'PUT', url: `${base}/echo`, body: { type: 'form', value: { value: { a: 'x y', n: 2 } } } });
    expect((outcome.outputs.body as Record<string, unknown>).body).toBe('a=x+y&n=2');
    expect(requests.at(-1)?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });

  it('retries a 429 after its Retry-After', async () => {
    throttled = 0;
    const { outcome, records, clock } = await run({ url: `${base}/throttled`, backoffMs: 5 });
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { status: 200 } });
    expect(records[1].details).toMatchObject({ attempts: 2 });
    expect(clock.sleeps).toContain(1000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT'))).toBe(2000);
  });

  it('refuses a redirect to a metadata address', async () => {
    const { outcome } = await run({ url: `${base}/to-metadata` });
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'OUTBOUND_BLOCKED' } });
  });

  it('fails on a non-2xx answer, secrets masked, or passes it on with failOnStatus: false', async () => {
    const config = { url: `${base}/missing`, headers: { Authorization: 'Bearer {{inputs.token}}' } };
    const failed = await run(config);
    expect(failed.outcome).toMatchObject({ status: 'failed', error: { code: 'HTTP_STATUS' } });
    expect(JSON.stringify(failed.records)).not.toContain(TOKEN);
    const passed = await run({ ...config, failOnStatus: false });
    expect(passed.outcome).toMatchObject({ status: 'succeeded', outputs: { status: 404, body: 'no such thing for Bearer ***' } });
  });

  it('refuses literal credentials, non-secret inputs and bad fields at save time, with paths', async () => {
    const node: NodeDefinition = {
      id: 'call',
      type: 'http',
      config: {
        method: 'FETCH',
        url: 'not a url',
        headers: { Authorization: 'Bearer abc123', 'X-Api-Key': '{{inputs.id}}' },
        body: { type: 'xml', value: { value: 1 } },
        retries: 99,
      },
      inputs: {},
    };
    const issues = await validateWorkflow(workflowWith(node), { registry, catalog: toolbox.catalog });
    expect(issues.map((issue) => `${issue.code} ${issue.path}`).sort()).toEqual([
      'INVALID_CONFIG /nodes/1/config/body/type',
      'INVALID_CONFIG /nodes/1/config/headers/Authorization',
      'INVALID_CONFIG /nodes/1/config/headers/X-Api-Key',
      'INVALID_CONFIG /nodes/1/config/method',
      'INVALID_CONFIG /nodes/1/config/retries',
      'INVALID_CONFIG /nodes/1/config/url',
    ]);
  });
});
