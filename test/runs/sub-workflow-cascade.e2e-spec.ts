import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import mongoose from 'mongoose';
import { startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { AppConfig, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, FAST_RECOVERY, registerToolset, startRun, waitForRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

/**
 * `gate`: n = 1 answers isError once the test opens the gate, any other n passes at once.
 * `hold`: runs until canceled (counts the cancellations it saw).
 */
function tools() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const state = { holding: 0, holdsCanceled: 0 };
  const gate: FixtureTool = {
    name: 'gate',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    handler: async ({ n }) => {
      if (n !== 1) return { content: [{ type: 'text', text: 'pass' }] };
      await opened;
      return { isError: true, content: [{ type: 'text', text: 'item 1 fails on purpose' }] };
    },
  };
  const hold: FixtureTool = {
    name: 'hold',
    inputSchema: { type: 'object', properties: {} },
    handler: (_args, context) =>
      new Promise((resolve) => {
        state.holding += 1;
        context.signal.addEventListener('abort', () => {
          state.holdsCanceled += 1;
          resolve({ content: [{ type: 'text', text: 'canceled' }] });
        });
      }),
  };
  return { tools: [gate, hold], state, open: () => open() };
}

/** A map (onItemError fail, both items at once) whose body passes `gate`, then calls `childId`. */
function mapCalling(toolsetId: string, childId: string) {
  return {
    name: 'gate, then call a workflow, per item',
    inputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'each',
        type: 'map',
        config: {
          concurrency: 2,
          onItemError: 'fail',
          body: {
            nodes: [
              { id: 'start', type: 'start' },
              { id: 'gate', type: 'mcpTool', config: { toolsetId, tool: 'gate' }, inputs: { n: { ref: 'start.item' } } },
              { id: 'call', type: 'workflow', config: { workflowId: childId } },
              { id: 'end', type: 'end' },
            ],
            edges: [
              { source: 'start', target: 'gate' },
              { source: 'gate', target: 'call' },
              { source: 'call', target: 'end' },
            ],
          },
        },
        inputs: { items: { ref: 'start.items' } },
      },
      { id: 'end', type: 'end', inputs: { results: { ref: 'each.results' } } },
    ],
    edges: [
      { source: 'start', target: 'each' },
      { source: 'each', target: 'end' },
    ],
  };
}

/** start → `middle` → end. */
function childWith(middle: Record<string, unknown>) {
  return {
    name: `a child that runs ${String(middle.type)}`,
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'middle', ...middle },
      { id: 'end', type: 'end' },
    ],
    edges: [
      { source: 'start', target: 'middle' },
      { source: 'middle', target: 'end', ...(middle.type === 'approval' && { sourceHandle: 'approved' }) },
    ],
  };
}

async function pollUntil(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function childrenOf(apiUrl: string, parentRunId: string): Promise<RunView[]> {
  const res = await api<{ items: RunView[] }>(apiUrl, 'GET', `/runs?parentRunId=${parentRunId}`);
  expect(res.status).toBe(200);
  return res.body.items;
}

describe('a run that fails takes its active sub-workflow runs with it', () => {
  let config: AppConfig;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let worker: INestApplicationContext;
  const fixtures: FixtureServer[] = [];

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
    const started = await startApi(config);
    apiUrl = started.url;
    closeApi = () => started.app.close();
    worker = await startWorker(config);
  }, 120_000);
  afterAll(async () => {
    await worker.close();
    await closeApi();
    for (const fixture of fixtures) await fixture.close();
    await dropTestData(config);
  });

  async function serve() {
    const served = tools();
    const fixture = await startFixtureServer({ tools: served.tools });
    fixtures.push(fixture);
    return { ...served, toolsetId: await registerToolset(apiUrl, fixture.url) };
  }

  it('item 1 fails while item 0’s child waits on an approval: the parent fails, the child ends canceled', async () => {
    const { toolsetId, open } = await serve();
    const child = await createWorkflow(apiUrl, childWith({ type: 'approval', config: { message: 'go?' } }));
    const parent = await createWorkflow(apiUrl, mapCalling(toolsetId, child));
    const started = await startRun(apiUrl, parent, { inputs: { items: [0, 1] } });
    await pollUntil(
      async () => (await childrenOf(apiUrl, started.body.id)).some((run) => run.status === 'waiting'),
      30_000,
      'item 0’s child waiting on its approval',
    );
    open();
    const run = await waitForRun(apiUrl, started.body.id, 30_000);
    expect(run.status).toBe('failed');
    const [childRun] = await childrenOf(apiUrl, run.id);
    const ended = await waitForRun(apiUrl, childRun.id, 30_000);
    expect(ended).toMatchObject({
      status: 'canceled',
      error: { code: 'RUN_CANCELED', message: `its parent run ${run.id} failed` },
    });
    // Canceled for good: answering its approval is refused.
    expect((await api(apiUrl, 'POST', `/runs/${childRun.id}/input`, { action: 'accept' })).status).toBe(409);
  }, 90_000);

  it('a child in the middle of a slow tool call when its parent fails is stopped and ends canceled', async () => {
    const { toolsetId, open, state } = await serve();
    const child = await createWorkflow(apiUrl, childWith({ type: 'mcpTool', config: { toolsetId, tool: 'hold' } }));
    const parent = await createWorkflow(apiUrl, mapCalling(toolsetId, child));
    const started = await startRun(apiUrl, parent, { inputs: { items: [0, 1] } });
    await pollUntil(async () => state.holding === 1, 30_000, 'item 0’s child inside its tool call');
    open();
    expect((await waitForRun(apiUrl, started.body.id, 30_000)).status).toBe('failed');
    const [childRun] = await childrenOf(apiUrl, started.body.id);
    expect(await waitForRun(apiUrl, childRun.id, 30_000)).toMatchObject({ status: 'canceled', error: { code: 'RUN_CANCELED' } });
    // The server was told (notifications/cancelled) and stopped its call.
    await pollUntil(async () => state.holdsCanceled === 1, 10_000, 'the tool call canceled on the server');
  }, 90_000);

  it('a parent that succeeds leaves its children as they ended', async () => {
    const { toolsetId } = await serve();
    const child = await createWorkflow(
      apiUrl,
      childWith({ type: 'mcpTool', config: { toolsetId, tool: 'gate' }, inputs: { n: { value: 0 } } }),
    );
    const parent = await createWorkflow(apiUrl, mapCalling(toolsetId, child));
    const started = await startRun(apiUrl, parent, { inputs: { items: [0, 2] } });
    expect((await waitForRun(apiUrl, started.body.id, 30_000)).status).toBe('succeeded');
    const children = await childrenOf(apiUrl, started.body.id);
    expect(children.map((run) => run.status)).toEqual(['succeeded', 'succeeded']);
    for (const run of children) expect(run.error ?? undefined).toBeUndefined();
  }, 90_000);

  it('a worker gone between a parent’s failed write and its cascade: the sweep cancels the child', async () => {
    const { toolsetId } = await serve();
    const child = await createWorkflow(apiUrl, childWith({ type: 'approval', config: { message: 'go?' } }));
    const parent = await createWorkflow(apiUrl, mapCalling(toolsetId, child));
    const started = await startRun(apiUrl, parent, { inputs: { items: [0, 1] } });
    await pollUntil(
      async () => (await childrenOf(apiUrl, started.body.id)).some((run) => run.status === 'waiting'),
      30_000,
      'item 0’s child waiting on its approval',
    );
    // The worker stops (the parent stays running, item 1 in its gate); the parent's terminal write
    // lands without the cascade after it, as when a worker dies between the two.
    await worker.close();
    const db = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
    try {
      const error = { code: 'RUN_WORKER_FAILED', message: 'written by the test' };
      await db
        .collection('runs')
        .updateOne(
          { _id: new mongoose.Types.ObjectId(started.body.id) },
          { $set: { status: 'failed', finishedAt: new Date(), error }, $unset: { lease: 1 } },
        );
    } finally {
      await db.close();
    }
    worker = await startWorker(config);
    const [childRun] = await childrenOf(apiUrl, started.body.id);
    expect(await waitForRun(apiUrl, childRun.id, 30_000)).toMatchObject({
      status: 'canceled',
      error: { code: 'RUN_CANCELED', message: `its parent run ${started.body.id} failed` },
    });
  }, 90_000);
});
