import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunStreamEvent, RunView } from '#workflow/nest';
import { as, createKey } from '../access/support.js';
import { spawnApi, type ApiProcess } from '../support/api-process.js';
import { authenticateAs } from '../support/auth.js';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, FAST_RECOVERY, readEvents, startRun, waitForRun, type Problem } from '../support/runs.js';
import { dropTestData, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** start → approval → (approved | rejected | timeout) → end: the run's outputs say which way it went. */
function approvalFlow(approval: Record<string, unknown>) {
  const branch = (id: string, handle: string) => [
    { id, type: 'template', inputs: { text: { value: handle } } },
    { source: 'ask', sourceHandle: handle, target: id },
  ];
  const handles = ['approved', 'rejected', ...('timeoutMs' in approval ? ['timeout'] : [])];
  const branches = handles.map((handle) => branch(`on_${handle}`, handle));
  return {
    name: 'ask a person',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'ask', type: 'approval', config: approval },
      ...branches.map(([node]) => node),
      {
        id: 'end',
        type: 'end',
        inputs: Object.fromEntries([
          ...handles.map((handle) => [handle, { ref: `on_${handle}.text` }]),
          ['answer', { ref: 'ask.content' }],
          ['by', { ref: 'ask.answeredBy' }],
        ]),
      },
    ],
    edges: [
      { source: 'start', target: 'ask' },
      ...branches.map(([, edge]) => edge),
      ...handles.map((handle) => ({ source: `on_${handle}`, target: 'end' })),
    ],
  };
}

const waiting = (run: RunView) => run.status === 'waiting';

describe('approval and wait: a run that waits for a person or for time, holding no worker', () => {
  const config = testConfig(FAST_RECOVERY);
  let apiProcess: ApiProcess;
  let worker: WorkerProcess;
  let url: string;

  async function startProcesses(): Promise<void> {
    apiProcess = await spawnApi(config, { ADMIN_API_KEY: config.auth.adminApiKey as string });
    worker = await spawnWorker(config);
    url = apiProcess.url;
    authenticateAs(url, config.auth.adminApiKey as string);
  }

  async function killProcesses(): Promise<void> {
    worker.kill('SIGKILL');
    await worker.exited;
    await apiProcess.stop();
  }

  beforeAll(startProcesses, 60_000);
  afterAll(async () => {
    await killProcesses();
    await dropTestData(config);
  });

  it('waits across a worker and API restart, checks the answer against the schema, and takes approved with who answered', async () => {
    const workflowId = await createWorkflow(
      url,
      approvalFlow({
        message: { template: 'Refund {{start.amount}}?' },
        schema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
      }),
    );
    const started = await startRun(url, workflowId, { inputs: { amount: 42 } });
    expect(started.status).toBe(202);
    const paused = await waitForRun(url, started.body.id, 20_000, waiting);
    expect(paused.inputRequest).toMatchObject({ nodeId: 'ask', message: 'Refund 42?', resumeAt: null });

    await killProcesses();
    await startProcesses();

    const approver = await createKey(url, { name: 'approver', scopes: ['run', 'read'] });
    const bad = await as(approver.key)<{ errors: Problem[] }>(url, 'POST', `/runs/${started.body.id}/input`, {
      action: 'accept',
      content: { note: 7 },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('/content/note');
    const answered = await as(approver.key)(url, 'POST', `/runs/${started.body.id}/input`, { action: 'accept', content: { note: 'ok' } });
    expect(answered.status).toBe(202);
    const run = await waitForRun(url, started.body.id, 20_000);
    expect(run.status).toBe('succeeded');
    expect(run.outputs).toEqual({ approved: 'approved', answer: { note: 'ok' }, by: approver.id });
    const logs = await allLogs(url, started.body.id);
    expect(logs.filter((item) => item.nodeId === 'ask').map((item) => item.status)).toEqual(['waiting', 'succeeded']);
  }, 120_000);

  it('takes rejected on decline, and the event stream shows run.waiting', async () => {
    const workflowId = await createWorkflow(url, approvalFlow({ message: 'Ship it?' }));
    const started = await startRun(url, workflowId, { inputs: {} });
    const events: RunStreamEvent[] = [];
    const stream = readEvents(`${url}/runs/${started.body.id}/events`, 30_000, (event) => events.push(event));
    await waitForRun(url, started.body.id, 20_000, waiting);
    const answered = await api(url, 'POST', `/runs/${started.body.id}/input`, { action: 'decline' });
    expect(answered.status).toBe(202);
    await stream;
    const run = await waitForRun(url, started.body.id);
    expect(run.outputs).toEqual({ rejected: 'rejected', answer: null, by: expect.any(String) });
    expect(events.map((event) => event.type)).toContain('run.waiting');
    expect(events.at(-1)?.type).toBe('run.finished');
  }, 60_000);

  it('takes timeout when nobody answers in time (a scheduled resume, the run holds no worker meanwhile)', async () => {
    const workflowId = await createWorkflow(url, approvalFlow({ message: 'Anyone?', timeoutMs: 1500 }));
    const started = await startRun(url, workflowId, { inputs: {} });
    const paused = await waitForRun(url, started.body.id, 20_000, waiting);
    expect(Date.parse(paused.inputRequest?.resumeAt ?? '')).toBeGreaterThan(Date.parse(paused.inputRequest?.requestedAt ?? ''));
    const run = await waitForRun(url, started.body.id, 30_000);
    expect(run.status).toBe('succeeded');
    expect(run.outputs).toEqual({ timeout: 'timeout', answer: null, by: null });
  }, 60_000);

  it('waits for a duration, durably; an answer ends a wait early', async () => {
    const workflowId = await createWorkflow(url, {
      name: 'wait a moment',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'pause', type: 'wait', inputs: { durationMs: { ref: 'start.ms' } } },
        { id: 'end', type: 'end', inputs: { early: { ref: 'pause.endedEarly' }, at: { ref: 'pause.resumedAt' } } },
      ],
      edges: [
        { source: 'start', target: 'pause' },
        { source: 'pause', target: 'end' },
      ],
    });
    const short = await startRun(url, workflowId, { inputs: { ms: 1500 } });
    const paused = await waitForRun(url, short.body.id, 20_000, waiting);
    const run = await waitForRun(url, short.body.id, 30_000);
    expect(run.status).toBe('succeeded');
    expect(run.outputs?.early).toBe(false);
    expect(Date.parse(run.outputs?.at as string)).toBeGreaterThanOrEqual(Date.parse(paused.inputRequest?.resumeAt ?? ''));

    const long = await startRun(url, workflowId, { inputs: { ms: 3_600_000 } });
    await waitForRun(url, long.body.id, 20_000, waiting);
    expect((await api(url, 'POST', `/runs/${long.body.id}/input`, { action: 'accept' })).status).toBe(202);
    expect((await waitForRun(url, long.body.id, 20_000)).outputs?.early).toBe(true);
  }, 90_000);

  it('refuses bad configurations at save, with paths', async () => {
    const res = await api<{ errors: Problem[] }>(url, 'POST', '/workflows', {
      ...approvalFlow({ message: '', schema: { type: 'nope' }, timeoutMs: 5 }),
    });
    expect(res.status).toBe(400);
    const paths = res.body.errors.map((problem) => problem.path);
    expect(paths).toEqual(expect.arrayContaining(['/nodes/1/config/message', '/nodes/1/config/schema', '/nodes/1/config/timeoutMs']));
    const wait = await api<{ errors: Problem[] }>(url, 'POST', '/workflows', {
      name: 'wait for nothing',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'pause', type: 'wait', inputs: {} },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'pause' },
        { source: 'pause', target: 'end' },
      ],
    });
    expect(wait.status).toBe(400);
    expect(wait.body.errors.map((problem) => problem.path)).toContain('/nodes/1/inputs');
  });
});
