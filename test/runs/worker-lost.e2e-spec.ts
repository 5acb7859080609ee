import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { allLogs, createWorkflow, FAST_RECOVERY, registerToolset, startRun, waitForRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** start → slow → end: the worker process is killed while `slow` runs. */
function slowFlow(ts: string) {
  const nodes = [
    { id: 'start', type: 'start' },
    { id: 'slow', type: 'mcpTool', config: { toolsetId: ts, tool: 'slow' }, inputs: { steps: { value: 50 }, stepMs: { value: 100 } } },
    { id: 'end', type: 'end', inputs: { said: { ref: 'slow.text' } } },
  ];
  return { name: 'slow', nodes, edges: nodes.slice(1).map((node, index) => ({ source: nodes[index].id, target: node.id })) };
}

/**
 * A run whose worker dies more often than RUN_MAX_STALLED_COUNT fails RUN_WORKER_LOST: BullMQ marks
 * the job's deferred failure and fails it with its UnrecoverableError when a worker next takes it,
 * and the worker tells that case by the error's type (run-worker.ts), not by BullMQ's message text.
 */
describe('a run whose worker is lost too often', () => {
  let config: AppConfig;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let fixture: FixtureServer;
  let ts: string;
  const processes: WorkerProcess[] = [];
  const inProcess: INestApplicationContext[] = [];

  beforeAll(async () => {
    config = testConfig({ ...FAST_RECOVERY, RUN_MAX_STALLED_COUNT: '0' });
    const started = await startApi(config);
    apiUrl = started.url;
    closeApi = () => started.app.close();
    fixture = await startFixtureServer({ tools: basicTools() });
    ts = await registerToolset(apiUrl, fixture.url);
  }, 300_000);
  afterEach(async () => {
    for (const worker of processes.splice(0)) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    for (const app of inProcess.splice(0)) await app.close();
  });
  afterAll(async () => {
    await closeApi();
    await fixture.close();
    await dropTestData(config);
  });

  it('fails RUN_WORKER_LOST once its job stalled more than RUN_MAX_STALLED_COUNT (0) times, and is not run again', async () => {
    const doomed = await spawnWorker(config);
    processes.push(doomed);
    const id = await createWorkflow(apiUrl, slowFlow(ts));
    const before = fixture.calls('slow');
    const run = await startRun(apiUrl, id);
    await waitUntil(() => fixture.calls('slow') > before, 15_000, 'the slow node to start in the worker process');
    doomed.kill('SIGKILL');
    await doomed.exited;

    inProcess.push(await startWorker(config));
    const finished = await waitForRun(apiUrl, run.body.id, 30_000);
    expect(finished).toMatchObject({ status: 'failed', error: { code: 'RUN_WORKER_LOST' } });
    // The job failed for good: the slow tool was not called a second time.
    expect(fixture.calls('slow')).toBe(before + 1);
    const logs = await allLogs(apiUrl, run.body.id);
    expect(logs.map((item) => item.nodeId)).not.toContain('end');
  }, 180_000);
});
