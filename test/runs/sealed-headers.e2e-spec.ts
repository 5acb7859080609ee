import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplicationContext } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppConfig, RunView } from '#workflow/nest';
import { createWorkerApp } from '../../apps/worker/src/worker.factory.js';
import { api } from '../support/http.js';
import { allLogs, readEvents, runToEnd, type Problem } from '../support/runs.js';
import { dropTestData } from '../support/stack.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

const SECRET = `sk-sealed-${randomBytes(12).toString('hex')}`;
const NEW_SECRET = `sk-other-${randomBytes(12).toString('hex')}`;
/** Every way a secret could be written: as given, base64, hex. */
const forms = (value: string) => [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')];
const SECRET_FORMS = [SECRET, NEW_SECRET].flatMap(forms);
const newKey = () => randomBytes(32).toString('hex');
const keyIdOf = (sealed: string) => sealed.split(':')[2];

/** A plain HTTP API on loopback: answers `{id, auth}` (the Authorization it got, echoed) and records every request's headers. */
async function startItemsApi() {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    const id = /\/items\/([\w-]+)$/.exec(request.url ?? '')?.[1] ?? null;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, auth: request.headers.authorization }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function workflow(url: string, authorization: unknown) {
  return {
    name: 'sealed header',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'call', type: 'http', config: { url, headers: { Authorization: authorization }, retries: 0 } },
      { id: 'end', type: 'end', inputs: { item: { ref: 'call.body' } } },
    ],
    edges: [
      { source: 'start', target: 'call' },
      { source: 'call', target: 'end' },
    ],
  };
}

type StoredVersion = { version: number; definition: string; secrets: { sealed: string; origin: string }[] };
type Saved = { id: string; nodes: { id: string; config: Record<string, unknown> }[]; errors?: Problem[]; code?: string };

describe('http node: sealed header values on the real stack', () => {
  let server: LoggedApi;
  let worker: INestApplicationContext;
  let items: Awaited<ReturnType<typeof startItemsApi>>;
  let other: Awaited<ReturnType<typeof startItemsApi>>;
  let workflowId: string;
  const answers: unknown[] = [];
  const firstKey = newKey();
  const configs: AppConfig[] = [];

  beforeAll(async () => {
    items = await startItemsApi();
    other = await startItemsApi();
    server = await startLoggedApi({ SECRETS_KEY: firstKey }, { keepData: true });
    configs.push(server.config);
    // nestjs-pino keeps one logger per process (the first app's): the worker's lines land in server.logs too.
    worker = await createWorkerApp(server.config);
  }, 60_000);
  afterAll(async () => {
    await worker?.close();
    await server?.close();
    for (const config of configs) await dropTestData(config);
    await items?.close();
    await other?.close();
  });

  const save = async (method: 'POST' | 'PUT', body: unknown) => {
    const res = await api<Saved>(server.url, method, method === 'POST' ? '/workflows' : `/workflows/${workflowId}`, body);
    answers.push(res.body);
    return res;
  };
  const run = async (id: string): Promise<RunView> => {
    const finished = await runToEnd(server.url, workflowId, { id });
    answers.push(finished, await allLogs(server.url, finished.id), await readEvents(`${server.url}/runs/${finished.id}/events`));
    return finished;
  };

  it('seals the value at save: every answer about the workflow shows "***"', async () => {
    const created = await save('POST', workflow(`${items.url}/items/{{start.id}}`, { secret: `Bearer ${SECRET}` }));
    expect(created.status).toBe(201);
    workflowId = created.body.id;
    expect(created.body.nodes[1].config.headers).toEqual({ Authorization: { secret: '***' } });
    for (const path of [
      `/workflows/${workflowId}`,
      '/workflows',
      `/workflows/${workflowId}/versions`,
      `/workflows/${workflowId}/versions/1`,
    ]) {
      const res = await api(server.url, 'GET', path);
      expect(res.status).toBe(200);
      answers.push(res.body);
    }
    const checked = await api(server.url, 'POST', '/workflows/validate', workflow(`${items.url}/items`, { secret: `Bearer ${SECRET}` }));
    expect(checked.body).toEqual({ valid: true, errors: [] });
    expect(JSON.stringify(answers)).toContain('"secret":"***"');
  });

  it('sends it to the API it was given for, and a server echoing it has it masked', async () => {
    const finished = await run('A-1');
    expect(finished.status).toBe('succeeded');
    expect(items.seen.at(-1)?.authorization).toBe(`Bearer ${SECRET}`);
    expect(finished.outputs).toEqual({ item: { id: 'A-1', auth: '***' } });
  });

  it('keeps it for a new version that sends "***" back on the same origin (another path)', async () => {
    const kept = await save('PUT', workflow(`${items.url}/v2/items/{{start.id}}`, { secret: '***' }));
    expect(kept.status).toBe(200);
    const finished = await run('B-2');
    expect(finished.status).toBe('succeeded');
    expect(items.seen.at(-1)?.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('refuses "***" for another origin, a templated origin and a new workflow, with the paths; nothing is sent', async () => {
    const moved = await save('PUT', workflow(`${other.url}/items/{{start.id}}`, { secret: '***' }));
    expect(moved.status).toBe(400);
    expect(moved.body.code).toBe('WORKFLOW_INVALID');
    expect(moved.body.errors).toEqual([
      { path: '/nodes/1/config/headers/Authorization/secret', code: 'SECRET_REQUIRED', message: expect.stringContaining(other.url) },
    ]);
    const templated = await save('POST', workflow('http://{{start.id}}/items', { secret: `Bearer ${SECRET}` }));
    expect(templated.status).toBe(400);
    expect(templated.body.errors).toEqual([expect.objectContaining({ path: '/nodes/1/config/url', code: 'INVALID_CONFIG' })]);
    const fresh = await save('POST', workflow(`${items.url}/items/{{start.id}}`, { secret: '***' }));
    expect(fresh.status).toBe(400);
    expect(fresh.body.errors).toEqual([
      expect.objectContaining({ path: '/nodes/1/config/headers/Authorization/secret', code: 'SECRET_REQUIRED' }),
    ]);
    expect(other.seen).toHaveLength(0);
    // Given again, the value goes to the new origin.
    const given = await save('PUT', workflow(`${other.url}/items/{{start.id}}`, { secret: `Bearer ${NEW_SECRET}` }));
    expect(given.status).toBe(200);
    expect((await run('C-3')).status).toBe('succeeded');
    expect(other.seen.at(-1)?.authorization).toBe(`Bearer ${NEW_SECRET}`);
  });

  it('shows the values in no answer, stored document, run log, event or log line', async () => {
    const text = JSON.stringify(answers);
    for (const value of SECRET_FORMS) expect(text).not.toContain(value);
    const dump = await rawDatabaseDump(server.config);
    const raw = JSON.stringify(dump);
    for (const value of SECRET_FORMS) expect(raw).not.toContain(value);
    const versions = dump.workflow_versions as StoredVersion[];
    expect(versions).toHaveLength(3);
    for (const version of versions) {
      expect(version.definition).toContain('"secret":"***"');
      expect(version.secrets).toEqual([expect.objectContaining({ sealed: expect.stringMatching(/^enc:v1:[\w-]{8}:/) })]);
    }
    expect(versions.map((version) => version.secrets[0].origin).sort()).toEqual([items.url, items.url, other.url].sort());
    expect(dump.runs?.length).toBe(3);
    const logs = server.logs.join('\n');
    expect(logs.match(/"msg":"run finished"/g)).toHaveLength(3);
    for (const value of SECRET_FORMS) expect(logs).not.toContain(value);
  });

  it('after a key rotation, runs open the values with SECRETS_KEY_PREVIOUS, and a version keeping "***" seals them under the new key', async () => {
    const mongoUrl = server.config.mongoUrl;
    await worker.close();
    await server.close();
    server = await startLoggedApi({ MONGO_URL: mongoUrl, SECRETS_KEY: newKey(), SECRETS_KEY_PREVIOUS: firstKey }, { keepData: true });
    configs.push(server.config);
    worker = await createWorkerApp(server.config);
    expect((await run('D-4')).status).toBe('succeeded');
    expect(other.seen.at(-1)?.authorization).toBe(`Bearer ${NEW_SECRET}`);

    const kept = await save('PUT', workflow(`${other.url}/items/{{start.id}}`, { secret: '***' }));
    expect(kept.status).toBe(200);
    const versions = ((await rawDatabaseDump(server.config)).workflow_versions as StoredVersion[]).sort((a, b) => a.version - b.version);
    const [before, after] = versions.slice(-2).map((version) => keyIdOf(version.secrets[0].sealed));
    expect(after).not.toBe(before);
    expect((await run('E-5')).status).toBe('succeeded');
    expect(other.seen.at(-1)?.authorization).toBe(`Bearer ${NEW_SECRET}`);
    const raw = JSON.stringify(await rawDatabaseDump(server.config));
    for (const value of SECRET_FORMS) expect(raw).not.toContain(value);
    expect(JSON.stringify(answers)).not.toContain(NEW_SECRET);
  }, 60_000);
});
