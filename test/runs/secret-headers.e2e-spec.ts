import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, readEvents, startRun, type Problem } from '../support/runs.js';
import { startWorker } from '../support/stack.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

/** Per-run headers: a toolset header built from a secret run input (the end user's token). */
describe('runs: header templates over secret inputs', () => {
  const tokenA = `user-a-${randomBytes(12).toString('hex')}`;
  const tokenB = `user-b-${randomBytes(12).toString('hex')}`;
  let api_: LoggedApi;
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let fixture: FixtureServer;
  let toolsetId: string;

  const workflow = (secretMark: Record<string, unknown>) => ({
    name: 'echo as the end user',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, userToken: { type: 'string', ...secretMark } },
      required: ['text', 'userToken'],
    },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'start.text' } } },
      { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
    ],
    edges: [
      { source: 'start', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  });

  beforeAll(async () => {
    api_ = await startLoggedApi({ LOG_LEVEL: 'debug' });
    worker = await startWorker(api_.config);
    fixture = await startFixtureServer({
      tools: basicTools(),
      callAuth: { header: 'authorization', values: [`Bearer ${tokenA}`, `Bearer ${tokenB}`] },
    });
    const created = await api<{ id: string; headers: Record<string, string> }>(api_.url, 'POST', '/toolsets', {
      url: fixture.url,
      headers: { Authorization: 'Bearer {{inputs.userToken}}' },
    });
    expect(created.status).toBe(201);
    expect(created.body.headers).toEqual({ Authorization: '***' });
    toolsetId = created.body.id;
  });
  afterAll(async () => {
    await worker?.close();
    await api_?.close();
    await fixture?.close();
  });

  it('refuses at save time a workflow whose inputSchema does not mark the templated input secret', async () => {
    const res = await api<{ code: string; errors: Problem[] }>(api_.url, 'POST', '/workflows', workflow({}));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WORKFLOW_INVALID');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: '/nodes/1/config/toolsetId', code: 'SECRET_INPUT_REQUIRED' })]);
    expect(res.body.errors[0].message).toMatch(/inputs\.userToken.*writeOnly/);
  });

  it('each run sends its own token; no token appears in responses, events, API logs or raw documents', async () => {
    const writeOnly = await createWorkflow(api_.url, workflow({ writeOnly: true }));
    const password = await createWorkflow(api_.url, workflow({ format: 'password' }));
    const runA = await startRun(api_.url, writeOnly, { inputs: { text: 'as A', userToken: tokenA } }, '?wait=15000');
    const runB = await startRun(api_.url, password, { inputs: { text: 'as B', userToken: tokenB } }, '?wait=15000');
    expect(runA.body).toMatchObject({ status: 'succeeded', outputs: { said: 'as A' }, inputs: { text: 'as A', userToken: '***' } });
    expect(runB.body).toMatchObject({ status: 'succeeded', outputs: { said: 'as B' }, inputs: { userToken: '***' } });
    // Two runs, two tokens, two sessions: each call carried its own run's token.
    expect(fixture.callHeaders()).toEqual([`Bearer ${tokenA}`, `Bearer ${tokenB}`]);

    const retried = await api<RunView>(api_.url, 'POST', `/runs/${(runA.body as RunView).id}/retry?wait=15000`);
    expect(retried.body).toMatchObject({ status: 'succeeded', inputs: { userToken: '***' } });
    expect(fixture.callHeaders().at(-1)).toBe(`Bearer ${tokenA}`);

    const wrong = await startRun(api_.url, writeOnly, { inputs: { text: 'as nobody', userToken: 'not-a-user' } }, '?wait=15000');
    expect(wrong.body).toMatchObject({ status: 'failed' });

    const shown: unknown[] = [];
    for (const run of [runA.body, runB.body, retried.body, wrong.body] as RunView[]) {
      shown.push(run, (await api(api_.url, 'GET', `/runs/${run.id}`)).body, (await api(api_.url, 'GET', `/runs/${run.id}/logs`)).body);
      shown.push(await readEvents(`${api_.url}/runs/${run.id}/events`));
    }
    shown.push((await api(api_.url, 'GET', '/runs?limit=50')).body, (await api(api_.url, 'GET', `/toolsets/${toolsetId}`)).body);
    const everything = JSON.stringify([shown, api_.logs, await rawDatabaseDump(api_.config)]);
    expect(everything).toContain('as A');
    for (const token of [tokenA, tokenB, 'not-a-user']) {
      expect(everything).not.toContain(token);
      expect(everything).not.toContain(Buffer.from(token).toString('base64'));
    }
  });

  it('a listing or an ad-hoc call has no run: the templated header is left out, not sent as a template', async () => {
    const before = fixture.callHeaders().length;
    const call = await api(api_.url, 'POST', `/toolsets/${toolsetId}/tools/echo/call`, { arguments: { message: 'no run' } });
    expect(call.status).toBe(422);
    expect(fixture.callHeaders().slice(before)).toEqual([undefined]);
  });
});
