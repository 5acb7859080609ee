import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { startFixtureServer, waitUntil, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, FAST_RECOVERY, loginTool, registerToolset, startRun, waitForRun, type Problem } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** Doubles `n` after a pause, failing for the listed values; counts calls per `n` and the most in flight at once. */
function doublingTool() {
  const state = { inFlight: 0, mostInFlight: 0, callsByItem: new Map<number, number>(), delayMs: 20, failFor: new Set<number>() };
  const tool: FixtureTool = {
    name: 'double',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: async ({ n }) => {
      const value = Number(n);
      state.callsByItem.set(value, (state.callsByItem.get(value) ?? 0) + 1);
      state.inFlight += 1;
      state.mostInFlight = Math.max(state.mostInFlight, state.inFlight);
      await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      state.inFlight -= 1;
      if (state.failFor.has(value)) return { isError: true, content: [{ type: 'text', text: `no double for ${value}` }] };
      return { content: [{ type: 'text', text: String(value * 2) }] };
    },
  };
  return { tool, state };
}

function mapFlow(toolsetId: string, map: Record<string, unknown>, call: Record<string, unknown> = {}) {
  return {
    name: 'double each',
    inputSchema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'each',
        type: 'map',
        config: {
          ...map,
          body: {
            nodes: [
              { id: 'start', type: 'start' },
              { id: 'call', type: 'mcpTool', config: { toolsetId, tool: 'double' }, inputs: { n: { ref: 'start.item' } }, ...call },
              { id: 'end', type: 'end', inputs: { doubled: { ref: 'call.result' } } },
            ],
            edges: [
              { source: 'start', target: 'call' },
              { source: 'call', target: 'end' },
            ],
          },
        },
        inputs: { items: { ref: 'start.items' } },
      },
      { id: 'end', type: 'end', inputs: { results: { ref: 'each.results' }, failed: { ref: 'each.failed' } } },
    ],
    edges: [
      { source: 'start', target: 'each' },
      { source: 'each', target: 'end' },
    ],
  };
}

const range = (count: number) => Array.from({ length: count }, (_, index) => index);

describe('map: a body run over each item of a list', () => {
  let config: AppConfig;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let fixture: FixtureServer;
  let toolsetId: string;
  const double = doublingTool();
  const processes: WorkerProcess[] = [];
  const inProcess: INestApplicationContext[] = [];

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
    const started = await startApi(config);
    apiUrl = started.url;
    closeApi = () => started.app.close();
    fixture = await startFixtureServer({ tools: [double.tool, loginTool] });
    toolsetId = await registerToolset(apiUrl, fixture.url);
  }, 120_000);
  afterEach(async () => {
    for (const worker of processes.splice(0)) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    for (const app of inProcess.splice(0)) await app.close();
    double.state.callsByItem.clear();
    double.state.mostInFlight = 0;
    double.state.failFor.clear();
  });
  afterAll(async () => {
    await closeApi();
    await fixture.close();
    await dropTestData(config);
  });

  it('maps 50 items over a real MCP tool, 4 at a time, results in input order, each item in the log with its index', async () => {
    inProcess.push(await startWorker(config));
    const workflowId = await createWorkflow(apiUrl, mapFlow(toolsetId, { concurrency: 4 }));
    const started = await startRun(apiUrl, workflowId, { inputs: { items: range(50) } });
    const run = await waitForRun(apiUrl, started.body.id, 60_000);
    expect(run.status).toBe('succeeded');
    expect(run.outputs?.results).toEqual(range(50).map((n) => ({ doubled: n * 2 })));
    expect(double.state.mostInFlight).toBeLessThanOrEqual(4);
    expect(double.state.mostInFlight).toBeGreaterThan(1);
    expect([...double.state.callsByItem.values()].every((calls) => calls === 1)).toBe(true);
    expect(double.state.callsByItem.size).toBe(50);
    const logs = await allLogs(apiUrl, started.body.id, 500);
    const call7 = logs.find((item) => item.nodeId === 'each[7]/call');
    expect(call7).toMatchObject({ status: 'succeeded', itemPath: [7], outputs: { result: 14 } });
    expect(logs.filter((item) => item.nodeId.endsWith('/call'))).toHaveLength(50);
  }, 90_000);

  it('collects per-item outcomes with onItemError "collect": 3 failing items, the run goes on', async () => {
    inProcess.push(await startWorker(config));
    double.state.failFor = new Set([2, 5, 7]);
    const workflowId = await createWorkflow(apiUrl, mapFlow(toolsetId, { onItemError: 'collect' }));
    const run = await waitForRun(apiUrl, (await startRun(apiUrl, workflowId, { inputs: { items: range(10) } })).body.id, 30_000);
    expect(run.status).toBe('succeeded');
    const results = run.outputs?.results as { ok: boolean; output?: unknown; error?: { code: string } }[];
    expect(run.outputs?.failed).toBe(3);
    expect(results.map((result) => result.ok)).toEqual(range(10).map((n) => ![2, 5, 7].includes(n)));
    expect(results[5].error?.code).toBe('MCP_TOOL_ERROR');
    expect(results[6]).toEqual({ ok: true, output: { doubled: 12 } });
  }, 60_000);

  it('fails the run on the first failing item by default, naming the item', async () => {
    inProcess.push(await startWorker(config));
    double.state.failFor = new Set([3]);
    const workflowId = await createWorkflow(apiUrl, mapFlow(toolsetId, { concurrency: 1 }));
    const run = await waitForRun(apiUrl, (await startRun(apiUrl, workflowId, { inputs: { items: range(10) } })).body.id, 30_000);
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'MCP_TOOL_ERROR', nodeId: 'each', message: expect.stringContaining('item 3 failed') });
    expect(double.state.callsByItem.has(4)).toBe(false);
  }, 60_000);

  it('SIGKILL of the worker mid-map: the resumed run does not call finished items again', async () => {
    double.state.delayMs = 150;
    try {
      const doomed = await spawnWorker(config);
      processes.push(doomed);
      // A call in flight at the kill is in doubt; its retry policy is what allows sending it again (at-most-once otherwise: docs/reliability.md).
      const workflowId = await createWorkflow(apiUrl, mapFlow(toolsetId, { concurrency: 2 }, { retry: { maxAttempts: 2, backoffMs: 0 } }));
      const started = await startRun(apiUrl, workflowId, { inputs: { items: range(16) } });
      await waitUntil(() => double.state.callsByItem.size >= 8, 30_000, 'half of the items to be called');
      doomed.kill('SIGKILL');
      await doomed.exited;
      inProcess.push(await startWorker(config));
      const run = await waitForRun(apiUrl, started.body.id, 60_000);
      expect(run.status).toBe('succeeded');
      expect(run.outputs?.results).toEqual(range(16).map((n) => ({ doubled: n * 2 })));
      // Only the items in flight at the kill (at most 2) are called twice; every finished one, once.
      const repeated = [...double.state.callsByItem.values()].filter((calls) => calls > 1);
      expect(repeated.length).toBeLessThanOrEqual(2);
      expect(double.state.callsByItem.size).toBe(16);
    } finally {
      double.state.delayMs = 20;
    }
  }, 120_000);

  it("redacts a body node's secret inputs (the tool's writeOnly, credential names) in the log as at the top level", async () => {
    inProcess.push(await startWorker(config));
    const definition = mapFlow(toolsetId, {});
    const body = (definition.nodes[1].config as { body: { nodes: Record<string, unknown>[] } }).body;
    body.nodes[1] = {
      id: 'call',
      type: 'mcpTool',
      config: { toolsetId, tool: 'login' },
      inputs: { user: { template: 'user{{start.item}}' }, pin: { value: '4921' }, apiKey: { value: 'sk-live-123' } },
    };
    body.nodes[2] = { id: 'end', type: 'end', inputs: { greeting: { ref: 'call.text' } } };
    const workflowId = await createWorkflow(apiUrl, definition);
    const run = await waitForRun(apiUrl, (await startRun(apiUrl, workflowId, { inputs: { items: [1, 2] } })).body.id, 30_000);
    expect(run.status).toBe('succeeded');
    expect(run.outputs?.results).toEqual([{ greeting: 'hello user1' }, { greeting: 'hello user2' }]);
    const logs = await allLogs(apiUrl, run.id, 50);
    expect(logs.find((item) => item.nodeId === 'each[1]/call')?.inputs).toEqual({ user: 'user2', pin: '***', apiKey: '***' });
    const raw = JSON.stringify(logs);
    expect(raw).not.toContain('4921');
    expect(raw).not.toContain('sk-live-123');
  }, 60_000);

  it('refuses a bad map at save with paths, into the body too', async () => {
    const definition = mapFlow(toolsetId, { concurrency: 99, onItemError: 'ignore' });
    const body = (definition.nodes[1].config as { body: { nodes: Record<string, unknown>[] } }).body;
    body.nodes[1] = { ...body.nodes[1], config: { toolsetId, tool: 'nope' } };
    const res = await api<{ errors: Problem[] }>(apiUrl, 'POST', '/workflows', definition);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((problem) => problem.path)).toEqual(
      expect.arrayContaining(['/nodes/1/config/concurrency', '/nodes/1/config/onItemError']),
    );
    const unknownTool = await api<{ errors: Problem[] }>(apiUrl, 'POST', '/workflows', mapFlow(toolsetId, {}));
    expect(unknownTool.status).toBe(201);
    const bodyOnly = mapFlow(toolsetId, {});
    (bodyOnly.nodes[1].config as { body: { nodes: Record<string, unknown>[] } }).body.nodes[1].config = { toolsetId, tool: 'nope' };
    const bad = await api<{ errors: Problem[] }>(apiUrl, 'POST', '/workflows', bodyOnly);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((problem) => problem.path)).toContain('/nodes/1/config/body/nodes/1/config/tool');
  });
});
