import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOutboundFetch } from '#mcp';
import { NODE_SECRETS_EXTRA } from '../engine/node-secrets.js';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { chain, createFakeToolbox, createRecordingClock, endNodeDef, ref, startNodeDef } from '../engine/testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import { validateWorkflow } from '../engine/validate-workflow.js';
import { openConfigSecrets, sealConfigSecrets } from '../secrets/config-secrets.js';
import { createSecretBox } from '../secrets/secret-box.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { HTTP_FETCH_EXTRA } from './http/http-port.js';

const registry = createDefaultNodeRegistry();
const toolbox = createFakeToolbox({});
const outboundFetch = createOutboundFetch();
const box = createSecretBox({ key: randomBytes(32).toString('hex') });
const SECRET = 'Bearer sk-sealed-fedcba9876543210';

/** A loopback server recording the headers it gets; `/echo` echoes the Authorization (body and header), `/hop` redirects to `target`. */
async function startServer(target = () => ''): Promise<{ url: string; seen: IncomingHttpHeaders[]; server: Server }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    if (request.url === '/hop') return void response.writeHead(302, { location: `${target()}/landed` }).end();
    const auth = request.headers.authorization ?? '';
    response.writeHead(200, { 'content-type': 'application/json', 'x-echo': auth }).end(JSON.stringify({ auth }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let home: Awaited<ReturnType<typeof startServer>>;
let elsewhere: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  elsewhere = await startServer();
  home = await startServer(() => elsewhere.url);
});

afterAll(async () => {
  outboundFetch.close();
  for (const { server } of [home, elsewhere]) await new Promise((resolve) => server.close(resolve));
});

function workflowWith(config: Record<string, unknown>): WorkflowDefinition {
  const node: NodeDefinition = { id: 'call', type: 'http', config: { retries: 0, ...config }, inputs: {} };
  return {
    name: 'sealed',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    nodes: [startNodeDef(), node, endNodeDef({ body: ref('call.body'), headers: ref('call.headers') })],
    edges: chain('start', 'call', 'end'),
  };
}

/** As the API and the worker do: sealed at save, the stored (masked) definition run with the opened values. */
async function saveAndRun(config: Record<string, unknown>, openFor = (secrets: Parameters<typeof openConfigSecrets>[0]) => secrets) {
  const { definition, secrets } = sealConfigSecrets(workflowWith(config), registry, box);
  const store = createInMemoryRunStore();
  const runId = `run-${Math.random()}`;
  const services = {
    tools: toolbox.invoker,
    catalog: toolbox.catalog,
    clock: createRecordingClock(),
    extras: { [HTTP_FETCH_EXTRA]: outboundFetch, [NODE_SECRETS_EXTRA]: openConfigSecrets(openFor(secrets), box) },
  };
  const outcome = await runWorkflow({ runId, workflow: definition, inputs: { path: 'x' }, registry, services, store });
  return { outcome, records: store.records(runId), definition };
}

describe('http node: sealed header values', () => {
  it('sends the sealed value to its origin; the answer, its headers and the records show it masked', async () => {
    const { outcome, records, definition } = await saveAndRun({ url: `${home.url}/echo`, headers: { Authorization: { secret: SECRET } } });
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { body: { auth: '***' } } });
    expect(home.seen.at(-1)?.authorization).toBe(SECRET);
    expect((outcome.outputs.headers as Record<string, string>)['x-echo']).toBe('***');
    expect(JSON.stringify([outcome, records, definition])).not.toContain('sk-sealed');
  });

  it('drops it on a redirect to another origin', async () => {
    const { outcome } = await saveAndRun({ url: `${home.url}/hop`, headers: { Authorization: { secret: SECRET } } });
    expect(outcome.status).toBe('succeeded');
    expect(home.seen.at(-1)?.authorization).toBe(SECRET);
    expect(elsewhere.seen.at(-1)?.authorization).toBeUndefined();
  });

  it('fails with SECRET_CONFIG_MISSING when the host has no value for it (none stored, or bound elsewhere)', async () => {
    const config = { url: `${home.url}/echo`, headers: { Authorization: { secret: SECRET } } };
    const before = home.seen.length;
    const none = await saveAndRun(config, () => []);
    expect(none.outcome).toMatchObject({ status: 'failed', error: { code: 'SECRET_CONFIG_MISSING' } });
    const bound = await saveAndRun(config, (secrets) => secrets.map((secret) => ({ ...secret, origin: elsewhere.url })));
    expect(bound.outcome).toMatchObject({ status: 'failed', error: { code: 'SECRET_CONFIG_MISSING' } });
    expect(home.seen.length).toBe(before);
  });

  it('is refused at save where a template could move the origin, in headers kept across origins, and when empty', async () => {
    const problems = async (url: string, headers: Record<string, unknown> = { Authorization: { secret: SECRET } }) =>
      (await validateWorkflow(workflowWith({ url, headers }), { registry, catalog: toolbox.catalog })).map(
        (issue) => `${issue.code} ${issue.path}`,
      );
    for (const url of [
      'https://{{start.path}}/a',
      'http://127.0.0.1:{{start.path}}/a',
      'https://api.example.com{{start.path}}',
      '{{start.path}}',
    ]) {
      expect(await problems(url)).toEqual(['INVALID_CONFIG /nodes/1/config/url']);
    }
    for (const url of ['https://api.example.com/{{start.path}}', 'https://api.example.com?q={{start.path}}', 'https://api.example.com']) {
      expect(await problems(url)).toEqual([]);
    }
    expect(await problems('https://api.example.com', { Accept: { secret: 'x' } })).toEqual([
      'INVALID_CONFIG /nodes/1/config/headers/Accept',
    ]);
    expect(await problems('https://api.example.com', { Authorization: { secret: '' } })).toEqual([
      'INVALID_CONFIG /nodes/1/config/headers',
    ]);
  });
});
