import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { AppConfig, LogItem, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, FAST_RECOVERY, registerToolset, startRun, waitForRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** Adds one to `n`; counts its calls per `n` (a finished item's child run is never run again). */
function incTool() {
  const callsByN = new Map<number, number>();
  const tool: FixtureTool = {
    name: 'inc',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    handler: ({ n }) => {
      callsByN.set(Number(n), (callsByN.get(Number(n)) ?? 0) + 1);
      return { content: [{ type: 'text', text: String(Number(n) + 1) }] };
    },
  };
  return { tool, callsByN };
}

/** start → inc → pause (`waitMs`) → end {total}. */
function childFlow(toolsetId: string, waitMs: number) {
  return {
    name: 'add one, then wait',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'inc', type: 'mcpTool', config: { toolsetId, tool: 'inc' }, inputs: { n: { ref: 'start.n' } } },
      { id: 'pause', type: 'wait', inputs: { durationMs: { value: waitMs } } },
      { id: 'end', type: 'end', inputs: { total: { ref: 'inc.result' } } },
    ],
    edges: [
      { source: 'start', target: 'inc' },
      { source: 'inc', target: 'pause' },
      { source: 'pause', target: 'end' },
    ],
  };
}

/** A map whose body calls `childId` per item: start → each(start → call → end {total}) → end {results}. */
function mapCalling(childId: string, concurrency: number) {
  return {
    name: 'call a workflow per item',
    inputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'each',
        type: 'map',
        config: {
          concurrency,
          body: {
            nodes: [
              { id: 'start', type: 'start' },
              { id: 'call', type: 'workflow', config: { workflowId: childId }, inputs: { n: { ref: 'start.item' } } },
              { id: 'end', type: 'end', inputs: { total: { ref: 'call.total' } } },
            ],
            edges: [
              { source: 'start', target: 'call' },
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

/** Polls an asynchronous condition (the API's view of runs) until it holds. */
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

/** The last log item of each item's `call` node, by item index. */
async function lastCalls(apiUrl: string, runId: string): Promise<Map<number, LogItem>> {
  const byItem = new Map<number, LogItem>();
  for (const item of await allLogs(apiUrl, runId, 200)) {
    if (item.nodeId.startsWith('each[') && item.nodeId.endsWith(']/call')) byItem.set((item.itemPath as number[])[0], item);
  }
  return byItem;
}

describe('map: a sub-workflow per item', () => {
  let config: AppConfig;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let fixture: FixtureServer;
  let toolsetId: string;
  const inc = incTool();
  const processes: WorkerProcess[] = [];
  const inProcess: INestApplicationContext[] = [];

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
    const started = await startApi(config);
    apiUrl = started.url;
    closeApi = () => started.app.close();
    fixture = await startFixtureServer({ tools: [inc.tool] });
    toolsetId = await registerToolset(apiUrl, fixture.url);
  }, 120_000);
  afterEach(async () => {
    for (const worker of processes.splice(0)) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    for (const app of inProcess.splice(0)) await app.close();
    inc.callsByN.clear();
  });
  afterAll(async () => {
    await closeApi();
    await fixture.close();
    await dropTestData(config);
  });

  it("runs one linked child per item, collects their outputs in order, and logs each child's id with its item index", async () => {
    inProcess.push(await startWorker(config));
    const child = await createWorkflow(apiUrl, childFlow(toolsetId, 200));
    const parent = await createWorkflow(apiUrl, mapCalling(child, 4));
    // The called version is pinned at save inside the body too.
    const saved = await api<{ nodes: { config: { body: { nodes: { config: Record<string, unknown> }[] } } }[] }>(
      apiUrl,
      'GET',
      `/workflows/${parent}`,
    );
    expect(saved.body.nodes[1].config.body.nodes[1].config).toEqual({ workflowId: child, version: 1 });

    const started = await startRun(apiUrl, parent, { inputs: { items: [1, 2, 3] } });
    const run = await waitForRun(apiUrl, started.body.id, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { results: [{ total: 2 }, { total: 3 }, { total: 4 }] } });
    const children = await childrenOf(apiUrl, run.id);
    expect(children).toHaveLength(3);
    for (const childRun of children) expect(childRun).toMatchObject({ status: 'succeeded', parentRunId: run.id, source: 'workflow' });
    const calls = await lastCalls(apiUrl, run.id);
    for (const index of [0, 1, 2]) {
      const childRun = children.find((candidate) => candidate.id === calls.get(index)?.childRunId);
      expect(calls.get(index)).toMatchObject({ nodeId: `each[${index}]/call`, status: 'succeeded', itemPath: [index] });
      expect(childRun?.inputs).toEqual({ n: index + 1 });
    }
    expect([...inc.callsByN.entries()].sort()).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
  }, 90_000);

  it('a worker SIGKILL while the map waits on its children: finished items are not run again, no second child per item', async () => {
    const doomed = await spawnWorker(config);
    processes.push(doomed);
    const child = await createWorkflow(apiUrl, childFlow(toolsetId, 1500));
    const parent = await createWorkflow(apiUrl, mapCalling(child, 1));
    const started = await startRun(apiUrl, parent, { inputs: { items: [10, 20, 30] } });
    // Item 0's child finished, item 1's child waits: the parent waits on it, holding no worker.
    await pollUntil(
      async () => {
        const children = await childrenOf(apiUrl, started.body.id);
        const byN = (n: number) => children.find((candidate) => candidate.inputs.n === n);
        return byN(10)?.status === 'succeeded' && byN(20)?.status === 'waiting';
      },
      45_000,
      "item 0's child to finish and item 1's to wait",
    );
    doomed.kill('SIGKILL');
    await doomed.exited;
    inProcess.push(await startWorker(config));
    const run = await waitForRun(apiUrl, started.body.id, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { results: [{ total: 11 }, { total: 21 }, { total: 31 }] } });
    const children = await childrenOf(apiUrl, run.id);
    expect(children.map((candidate) => candidate.inputs.n).sort()).toEqual([10, 20, 30]);
    expect([...inc.callsByN.values()]).toEqual([1, 1, 1]);
    const finishedCalls = (await allLogs(apiUrl, run.id, 200)).filter(
      (item) => item.nodeId === 'each[0]/call' && item.status === 'succeeded',
    );
    expect(finishedCalls).toHaveLength(1);
  }, 150_000);

  it('cancel of the parent cancels the children its items wait on; concurrency bounds the children started', async () => {
    inProcess.push(await startWorker(config));
    const child = await createWorkflow(apiUrl, childFlow(toolsetId, 600_000));
    const parent = await createWorkflow(apiUrl, mapCalling(child, 2));
    const started = await startRun(apiUrl, parent, { inputs: { items: [1, 2, 3, 4] } });
    await pollUntil(
      async () => (await childrenOf(apiUrl, started.body.id)).filter((candidate) => candidate.status === 'waiting').length === 2,
      30_000,
      'two children waiting',
    );
    expect((await waitForRun(apiUrl, started.body.id, 10_000, (run) => run.status === 'waiting')).status).toBe('waiting');
    expect(await childrenOf(apiUrl, started.body.id)).toHaveLength(2);
    const canceled = await api<RunView>(apiUrl, 'POST', `/runs/${started.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    for (const childRun of await childrenOf(apiUrl, started.body.id)) {
      expect((await waitForRun(apiUrl, childRun.id, 20_000)).status).toBe('canceled');
    }
    expect((await waitForRun(apiUrl, started.body.id, 20_000)).status).toBe('canceled');
  }, 90_000);

  it('asks a person per item: POST /runs/:id/input answers the item inputRequest names, then the next', async () => {
    inProcess.push(await startWorker(config));
    const parent = await createWorkflow(apiUrl, {
      name: 'approve each',
      inputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'each',
          type: 'map',
          config: {
            body: {
              nodes: [
                { id: 'start', type: 'start' },
                { id: 'ask', type: 'approval', config: { message: { template: 'ship {{start.item}}?' } } },
                { id: 'end', type: 'end', inputs: { action: { ref: 'ask.action' } } },
              ],
              edges: [
                { source: 'start', target: 'ask' },
                { source: 'ask', sourceHandle: 'approved', target: 'end' },
                { source: 'ask', sourceHandle: 'rejected', target: 'end' },
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
    });
    const started = await startRun(apiUrl, parent, { inputs: { items: ['a', 'b'] } });
    const asked: string[] = [];
    for (const action of ['accept', 'decline']) {
      const waiting = await waitForRun(apiUrl, started.body.id, 20_000, (run) => run.status === 'waiting');
      asked.push(`${waiting.inputRequest?.nodeId}: ${waiting.inputRequest?.message}`);
      const answered = await api(apiUrl, 'POST', `/runs/${started.body.id}/input`, { action });
      expect(answered.status).toBe(202);
    }
    const run = await waitForRun(apiUrl, started.body.id, 20_000);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { results: [{ action: 'accept' }, { action: 'decline' }] } });
    expect(asked).toEqual(['each[0]/ask: ship a?', 'each[1]/ask: ship b?']);
  }, 60_000);
});
