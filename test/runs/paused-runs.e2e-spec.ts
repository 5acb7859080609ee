import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import {
  basicTools,
  greetTool,
  startFixtureServer,
  startStatelessFixtureServer,
  type FixtureServer,
  type StatelessFixtureServer,
} from '#mcp/testing';
import type { LogItem, RunStreamEvent, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  allLogs,
  createWorkflow,
  FAST_RECOVERY,
  readEvents,
  registerToolset,
  startRun,
  waitForRun,
  type Problem,
} from '../support/runs.js';
import { startWorker } from '../support/stack.js';
import { startLoggedApi, type LoggedApi } from '../support/toolsets.js';

/** A node declaring `elicitation: "pause"`: the run waits for `POST /runs/:id/input`, then resumes through the queue. */
describe('runs: pausing for input', () => {
  let stack: LoggedApi;
  let worker: INestApplicationContext;
  let session: FixtureServer;
  let stateless: StatelessFixtureServer;

  beforeAll(async () => {
    stack = await startLoggedApi(FAST_RECOVERY);
    worker = await startWorker(stack.config);
    session = await startFixtureServer({ tools: [...basicTools(), greetTool] });
    stateless = await startStatelessFixtureServer({ tools: [...basicTools(), greetTool] });
  });
  afterAll(async () => {
    await worker?.close();
    await stack?.close();
    await Promise.all([session?.close(), stateless?.close()]);
  });

  const pausingGreeter = (toolsetId: string) => ({
    name: 'ask who to greet',
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'greet', type: 'mcpTool', config: { toolsetId, tool: 'greet', elicitation: 'pause' }, inputs: {} },
      { id: 'end', type: 'end', inputs: { said: { ref: 'greet.text' } } },
    ],
    edges: [
      { source: 'start', target: 'greet' },
      { source: 'greet', target: 'end' },
    ],
  });

  it.each([
    [
      '2025-11-25 session server: the call is abandoned, then sent again and answered at once',
      () => session.url,
      () => session.calls('greet'),
    ],
    ['2026-07-28 stateless server: the resume is the retry with inputResponses', () => stateless.url, () => stateless.calls('greet')],
  ])('%s', async (kind, url, greetCalls) => {
    const toolsetId = await registerToolset(stack.url, url(), `greeter ${kind}`);
    const workflowId = await createWorkflow(stack.url, pausingGreeter(toolsetId));
    const callsBefore = greetCalls();
    const events: RunStreamEvent[] = [];
    let answer: Promise<unknown> | undefined;

    const started = await startRun(stack.url, workflowId, {}, '?wait=15000');
    // ?wait returns once the run waits: nothing more happens until someone answers.
    expect(started.status).toBe(202);
    const runId = started.body.id;
    const question = { message: 'Who should be greeted?', requestedSchema: expect.objectContaining({ required: ['name'] }) };
    expect(started.body).toMatchObject({
      status: 'waiting',
      inputRequest: { nodeId: 'greet', ...question, requestedAt: expect.any(String) },
    });
    expect((await api<RunView>(stack.url, 'GET', `/runs/${runId}`)).body).toMatchObject({ status: 'waiting', inputRequest: question });
    const waitingLog = (await allLogs(stack.url, runId)).find((item) => item.nodeId === 'greet') as LogItem;
    expect(waitingLog).toMatchObject({ status: 'waiting', inputRequest: question, error: { code: 'INPUT_REQUIRED' } });

    const bad = await api<{ code: string; errors: Problem[] }>(stack.url, 'POST', `/runs/${runId}/input`, { content: { times: 'twice' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((problem) => problem.path).sort()).toEqual(['/content/name', '/content/times']);
    expect((await api<RunView>(stack.url, 'GET', `/runs/${runId}`)).body.status).toBe('waiting');

    // The stream announces the pause, stays open, and goes on to the end once the answer is in.
    const streamed = readEvents(`${stack.url}/runs/${runId}/events`, 20_000, (event) => {
      events.push(event);
      if (event.type === 'run.waiting')
        answer ??= api(stack.url, 'POST', `/runs/${runId}/input`, { action: 'accept', content: { name: 'Lin', times: 2 } });
    });
    await streamed;
    const answered = (await answer) as { status: number; body: RunView };
    expect(answered.status).toBe(202);
    expect(answered.body).toMatchObject({ status: 'queued', inputRequest: null });
    expect(events.map((event) => event.type)).toContain('run.waiting');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', run: { status: 'succeeded', outputs: { said: 'Hello LinHello Lin' } } });

    const finished = await waitForRun(stack.url, runId);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'Hello LinHello Lin' }, inputRequest: null });
    // One call that asked, one that was answered: nothing else reached the tool.
    expect(greetCalls() - callsBefore).toBe(2);
    const logs = await allLogs(stack.url, runId);
    expect(logs.map((item) => `${item.nodeId}:${item.status}`)).toEqual([
      'start:succeeded',
      'greet:waiting',
      'greet:succeeded',
      'end:succeeded',
    ]);

    const again = await api<{ code: string }>(stack.url, 'POST', `/runs/${runId}/input`, { content: { name: 'Ada' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('RUN_NOT_WAITING');
  });

  it('a declined answer reaches the tool as a decline; a waiting run can be canceled, and its input is then refused', async () => {
    const toolsetId = await registerToolset(stack.url, stateless.url, 'greeter to decline');
    const workflowId = await createWorkflow(stack.url, pausingGreeter(toolsetId));
    const first = (await startRun(stack.url, workflowId, {}, '?wait=15000')).body;
    expect(first.status).toBe('waiting');
    expect((await api(stack.url, 'POST', `/runs/${first.id}/input`, { action: 'decline' })).status).toBe(202);
    expect(await waitForRun(stack.url, first.id)).toMatchObject({ status: 'succeeded', outputs: { said: 'no greeting (decline)' } });

    const second = (await startRun(stack.url, workflowId, {}, '?wait=15000')).body;
    expect(second.status).toBe('waiting');
    const canceled = await api<RunView>(stack.url, 'POST', `/runs/${second.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', inputRequest: null, error: { code: 'RUN_CANCELED' } });
    expect((await api(stack.url, 'POST', `/runs/${second.id}/input`, { content: { name: 'Ada' } })).status).toBe(409);
  });
});
