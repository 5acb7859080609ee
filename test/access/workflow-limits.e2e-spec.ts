import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, runToEnd, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { as, createKey, greeting, type CreatedKey } from './support.js';

const ids = (items: { id: string }[]) => items.map((item) => item.id);

describe('workflow-limited keys and who did what', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let adminId: string;
  let mine: string;
  let theirs: string;
  let limited: CreatedKey;
  let writer: CreatedKey;
  let theirRun: RunView;

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: basicTools() });
    const keys = await api<{ items: { id: string; name: string }[] }>(stack.apiUrl, 'GET', '/api-keys');
    adminId = keys.body.items.find((key) => key.name === 'admin (ADMIN_API_KEY)')!.id;
    mine = await createWorkflow(stack.apiUrl, greeting('mine'));
    theirs = await createWorkflow(stack.apiUrl, greeting('theirs'));
    limited = await createKey(stack.apiUrl, { name: 'mine only', scopes: ['run', 'read'], workflows: [mine] });
    writer = await createKey(stack.apiUrl, { name: 'author', scopes: ['write'] });
    theirRun = await runToEnd(stack.apiUrl, theirs, { who: 'Bob' });
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it('sees only its workflows: others answer 404 and lists leave them out', async () => {
    const call = as(limited.key);
    const list = await call<{ items: { id: string }[] }>(stack.apiUrl, 'GET', '/workflows');
    expect(ids(list.body.items)).toEqual([mine]);
    expect((await call(stack.apiUrl, 'GET', `/workflows/${mine}`)).status).toBe(200);
    for (const path of [`/workflows/${theirs}`, `/workflows/${theirs}/versions`, `/workflows/${theirs}/versions/1`]) {
      const res = await call(stack.apiUrl, 'GET', path);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 'NOT_FOUND' });
    }
    const run = await call(stack.apiUrl, 'POST', `/workflows/${theirs}/runs`, { inputs: { who: 'Eve' } });
    expect(run.status).toBe(404);
    expect(run.body.message).toBe(`Workflow ${theirs} not found`);
  });

  it('runs its workflow (triggeredBy names the key) but cannot see runs, logs or events of another', async () => {
    const call = as(limited.key);
    const started = await call<RunView>(stack.apiUrl, 'POST', `/workflows/${mine}/runs?wait=20000`, { inputs: { who: 'Ada' } });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ status: 'succeeded', outputs: { greeting: 'Hello Ada' }, triggeredBy: limited.id });
    expect((await call(stack.apiUrl, 'GET', `/runs/${started.body.id}/logs`)).status).toBe(200);
    for (const [method, path] of [
      ['GET', `/runs/${theirRun.id}`],
      ['GET', `/runs/${theirRun.id}/logs`],
      ['GET', `/runs/${theirRun.id}/events`],
      ['POST', `/runs/${theirRun.id}/cancel`],
      ['POST', `/runs/${theirRun.id}/retry`],
      ['POST', `/runs/${theirRun.id}/replay`],
    ]) {
      const res = await call(stack.apiUrl, method, path);
      expect({ path, status: res.status, message: res.body.message }).toEqual({
        path,
        status: 404,
        message: `Run ${theirRun.id} not found`,
      });
    }
    const runs = await call<{ items: RunView[] }>(stack.apiUrl, 'GET', '/runs');
    expect(ids(runs.body.items)).toEqual([started.body.id]);
    expect((await call<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${theirs}`)).body.items).toEqual([]);
    const everyone = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', '/runs');
    expect(ids(everyone.body.items)).toEqual([started.body.id, theirRun.id]);
    expect(theirRun.triggeredBy).toBe(adminId);
    const byKey = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?triggeredBy=${limited.id}`);
    expect(ids(byKey.body.items)).toEqual([started.body.id]);
  });

  it('is refused (403) on routes that are not about its workflows', async () => {
    const call = as(limited.key);
    for (const [method, path] of [
      ['GET', '/toolsets'],
      ['GET', '/providers'],
      ['POST', '/workflows/validate'],
    ]) {
      const res = await call(stack.apiUrl, method, path, method === 'POST' ? greeting('x') : undefined);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'FORBIDDEN' });
    }
  });

  it('records which key created and changed workflows, their versions and toolsets', async () => {
    const latest = await api(stack.apiUrl, 'GET', `/workflows/${mine}`);
    expect(latest.body).toMatchObject({ version: 1, createdBy: adminId, updatedBy: adminId });
    const put = await as(writer.key)(stack.apiUrl, 'PUT', `/workflows/${mine}`, greeting('mine, v2'));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ version: 2, createdBy: adminId, updatedBy: writer.id });
    const versions = await api<{ items: { version: number; createdBy: string }[] }>(stack.apiUrl, 'GET', `/workflows/${mine}/versions`);
    expect(versions.body.items.map(({ version, createdBy }) => ({ version, createdBy }))).toEqual([
      { version: 2, createdBy: writer.id },
      { version: 1, createdBy: adminId },
    ]);
    const summary = await api<{ items: { id: string; createdBy: string; updatedBy: string }[] }>(stack.apiUrl, 'GET', '/workflows');
    expect(summary.body.items.find((item) => item.id === mine)).toMatchObject({ createdBy: adminId, updatedBy: writer.id });

    const toolset = await as(writer.key)<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', { name: 'fixture', url: fixture.url });
    expect(toolset.status).toBe(201);
    expect(toolset.body).toMatchObject({ createdBy: writer.id, updatedBy: writer.id });
    const renamed = await api(stack.apiUrl, 'PATCH', `/toolsets/${toolset.body.id}`, { name: 'renamed' });
    expect(renamed.body).toMatchObject({ createdBy: writer.id, updatedBy: adminId });
  });
});
