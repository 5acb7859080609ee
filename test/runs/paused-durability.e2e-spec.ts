import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, greetTool, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, expectNoSessions, FAST_RECOVERY, readEvents, startRun, waitForRun } from '../support/runs.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** A waiting run belongs to no worker: one killed with SIGKILL while it waits loses nothing, and secrets stay out of sight. */
describe('durability: a run waiting for input outlives its worker', () => {
  const token = `user-${randomBytes(12).toString('hex')}`;
  let stack: LoggedApi;
  let fixture: FixtureServer;
  let toolsetId: string;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    stack = await startLoggedApi(FAST_RECOVERY);
    fixture = await startFixtureServer({
      tools: [...basicTools(), greetTool],
      callAuth: { header: 'authorization', values: [`Bearer ${token}`] },
    });
    const created = await api<{ id: string }>(stack.url, 'POST', '/toolsets', {
      url: fixture.url,
      headers: { Authorization: 'Bearer {{inputs.userToken}}' },
    });
    expect(created.status).toBe(201);
    toolsetId = created.body.id;
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    await stack?.close();
    await fixture?.close();
  });

  it('SIGKILL while waiting, a new worker, the answer: the run finishes right; the token is in no response, log line or document', async () => {
    const workflowId = await createWorkflow(stack.url, {
      name: 'greet as the end user',
      inputSchema: {
        type: 'object',
        properties: { topic: { type: 'string' }, userToken: { type: 'string', writeOnly: true } },
        required: ['topic', 'userToken'],
      },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'greet', type: 'mcpTool', config: { toolsetId, tool: 'greet', elicitation: 'pause' }, inputs: {} },
        { id: 'end', type: 'end', inputs: { said: { ref: 'greet.text' }, topic: { ref: 'start.topic' } } },
      ],
      edges: [
        { source: 'start', target: 'greet' },
        { source: 'greet', target: 'end' },
      ],
    });
    const doomed = await spawnWorker(stack.config, { LOG_LEVEL: 'debug' });
    workers.push(doomed);
    const started = await startRun(stack.url, workflowId, { inputs: { topic: 'welcome', userToken: token } }, '?wait=15000');
    expect(started.body).toMatchObject({ status: 'waiting', inputs: { userToken: '***' }, inputRequest: { nodeId: 'greet' } });
    const runId = started.body.id;
    // Paused: the run's pool is closed, no session waits on the server.
    await expectNoSessions(fixture);

    doomed.kill('SIGKILL');
    expect(await doomed.exited).toBeNull();
    const successor = await spawnWorker(stack.config, { LOG_LEVEL: 'debug' });
    workers.push(successor);
    // Its recovery sweep (every 300 ms, runs unconfirmed for 1 s) must not take a waiting run for a stuck one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await api<RunView>(stack.url, 'GET', `/runs/${runId}`)).body.status).toBe('waiting');
    expect(fixture.calls('greet')).toBe(1);

    const answered = await api<RunView>(stack.url, 'POST', `/runs/${runId}/input`, { content: { name: 'Lin' } });
    expect(answered.status).toBe(202);
    const finished = await waitForRun(stack.url, runId, 20_000);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'Hello Lin', topic: 'welcome' }, inputs: { userToken: '***' } });
    // Asked once by the killed worker's call, answered by the successor's; both calls carried the run's token.
    expect(fixture.callHeaders()).toEqual([`Bearer ${token}`, `Bearer ${token}`]);
    await expectNoSessions(fixture);

    const shown = [
      started.body,
      answered.body,
      finished,
      await allLogs(stack.url, runId),
      await readEvents(`${stack.url}/runs/${runId}/events`),
      (await api(stack.url, 'GET', '/runs?limit=50')).body,
    ];
    // Stopped gracefully, the successor has flushed its log (the killed one lost what pino still buffered).
    successor.kill('SIGTERM');
    expect(await successor.exited).toBe(0);
    expect(successor.output()).toContain('run finished');
    const dump = await rawDatabaseDump(stack.config);
    const everything = JSON.stringify([shown, stack.logs, doomed.output(), successor.output(), dump]);
    expect(everything).toContain('Hello Lin');
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(Buffer.from(token).toString('base64'));
    // The answer itself is kept sealed on the run.
    const stored = dump.runs.find((doc) => String((doc as { _id: unknown })._id) === runId) as { inputState?: string };
    expect(stored.inputState).toEqual(expect.any(String));
    expect(stored.inputState).not.toContain('Lin');
  }, 90_000);
});
