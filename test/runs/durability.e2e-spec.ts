import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { Redis } from 'ioredis';
import mongoose from 'mongoose';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import type { AppConfig, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  allLogs,
  createWorkflow,
  expectNoSessions,
  FAST_RECOVERY,
  readEvents,
  registerToolset,
  startRun,
  waitForRun,
} from '../support/runs.js';
import { startRedis, type StartedService } from '../support/services.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';

/** start → first (add) → slow → third (echo) → end: the kill lands while `slow` runs. */
function crashFlow(ts: string, slowSteps: number) {
  const nodes = [
    { id: 'start', type: 'start' },
    { id: 'first', type: 'mcpTool', config: { toolsetId: ts, tool: 'add' }, inputs: { a: { value: 1 }, b: { value: 2 } } },
    {
      id: 'slow',
      type: 'mcpTool',
      config: { toolsetId: ts, tool: 'slow' },
      inputs: { steps: { value: slowSteps }, stepMs: { value: 100 } },
      // A call cut off by a crash is in doubt: resent on takeover only because the node says it may be.
      retry: { maxAttempts: 2, backoffMs: 100 },
    },
    {
      id: 'third',
      type: 'mcpTool',
      config: { toolsetId: ts, tool: 'echo' },
      inputs: { message: { template: 'sum {{first.result.sum}}' } },
    },
    { id: 'end', type: 'end', inputs: { said: { ref: 'third.text' } } },
  ];
  return { name: 'crash', nodes, edges: nodes.slice(1).map((node, index) => ({ source: nodes[index].id, target: node.id })) };
}

/** start → first (add) → note (template: pure, its record waits for the next write: slow's call marker) → slow → third (echo) → end. */
function pureThenSlowFlow(ts: string) {
  const nodes = [
    { id: 'start', type: 'start' },
    { id: 'first', type: 'mcpTool', config: { toolsetId: ts, tool: 'add' }, inputs: { a: { value: 1 }, b: { value: 2 } } },
    { id: 'note', type: 'template', inputs: { text: { template: 'sum {{first.result.sum}}' } } },
    {
      id: 'slow',
      type: 'mcpTool',
      config: { toolsetId: ts, tool: 'slow' },
      inputs: { steps: { value: 30 }, stepMs: { value: 100 } },
      retry: { maxAttempts: 2, backoffMs: 100 },
    },
    { id: 'third', type: 'mcpTool', config: { toolsetId: ts, tool: 'echo' }, inputs: { message: { ref: 'note.text' } } },
    { id: 'end', type: 'end', inputs: { said: { ref: 'third.text' } } },
  ];
  return { name: 'pure then slow', nodes, edges: nodes.slice(1).map((node, index) => ({ source: nodes[index].id, target: node.id })) };
}

/** The nodes whose executions `node_executions` holds for the run, in seq order. */
async function storedNodes(config: AppConfig, runId: string): Promise<string[]> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    const records = await connection
      .collection('node_executions')
      // Node records only: the journal's markers (run-journal.ts) have a negative seq.
      .find({ runId: new mongoose.Types.ObjectId(runId), seq: { $gt: 0 } })
      .sort({ seq: 1 })
      .toArray();
    return records.map((record) => String(record.nodeId));
  } finally {
    await connection.close();
  }
}

/** The MCP sessions the run has on record in `run_mcp_sessions` (the API never shows them). */
async function recordedSessions(config: AppConfig, runId: string): Promise<unknown[]> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    const records = await connection
      .collection('run_mcp_sessions')
      .find({ runId: new mongoose.Types.ObjectId(runId) })
      .toArray();
    return records.map(({ toolsetId, sessionId }) => ({ toolsetId, sessionId }));
  } finally {
    await connection.close();
  }
}

describe('durability: a worker process dies or stops mid-run', () => {
  let config: AppConfig;
  let apiUrl: string;
  let closeApi: () => Promise<void>;
  let fixture: FixtureServer;
  let ts: string;
  const processes: WorkerProcess[] = [];
  const inProcess: INestApplicationContext[] = [];

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
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

  const counts = () => ({ add: fixture.calls('add'), slow: fixture.calls('slow'), echo: fixture.calls('echo') });

  it('SIGKILL during a slow node: another worker ends the MCP session the killed one left open, then resumes the run; finished nodes are not called again', async () => {
    const doomed = await spawnWorker(config);
    processes.push(doomed);
    const id = await createWorkflow(apiUrl, crashFlow(ts, 30));
    const before = counts();
    const run = await startRun(apiUrl, id);
    await waitUntil(() => fixture.calls('slow') > before.slow, 15_000, 'the slow node to start in the worker process');
    doomed.kill('SIGKILL');
    expect(await doomed.exited).toBeNull();
    const midway = await api<RunView>(apiUrl, 'GET', `/runs/${run.body.id}`);
    expect(midway.body.status).toBe('running');
    // The killed process's session is still open on the server, and on record for the run.
    expect(fixture.sessions()).toBe(1);
    const leftover = await recordedSessions(config, run.body.id);
    expect(leftover).toEqual([{ toolsetId: ts, sessionId: expect.any(String) }]);

    inProcess.push(await startWorker(config));
    const finished = await waitForRun(apiUrl, run.body.id, 30_000);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'sum 3' } });
    // `first` had finished before the kill: one call. `slow` was cut off: called again. `third`: once.
    expect(counts()).toEqual({ add: before.add + 1, slow: before.slow + 2, echo: before.echo + 1 });
    const logs = await allLogs(apiUrl, run.body.id);
    expect(logs.map((item) => `${item.nodeId}:${item.status}`)).toEqual([
      'start:succeeded',
      'first:succeeded',
      'slow:succeeded',
      'third:succeeded',
      'end:succeeded',
    ]);
    const events = await readEvents(`${apiUrl}/runs/${run.body.id}/events`);
    expect(events[0]).toMatchObject({ type: 'run.started', claim: 2 });
    // The resuming worker ended the killed one's session before it started (and forgot it); its own closed with
    // the run, whose end leaves that one's record behind, inert (no claim comes after the end).
    await expectNoSessions(fixture);
    const recorded = await recordedSessions(config, run.body.id);
    expect(recorded).not.toContainEqual(leftover[0]);
    expect(recorded).toEqual([{ toolsetId: ts, sessionId: expect.any(String) }]);
  }, 60_000);

  it('SIGKILL after a pure node whose record waited for the next write (the next call’s marker): the resumed run repeats no finished call', async () => {
    const doomed = await spawnWorker(config);
    processes.push(doomed);
    const id = await createWorkflow(apiUrl, pureThenSlowFlow(ts));
    const before = counts();
    const run = await startRun(apiUrl, id);
    await waitUntil(() => fixture.calls('slow') > before.slow, 15_000, 'the slow node to start in the worker process');
    doomed.kill('SIGKILL');
    expect(await doomed.exited).toBeNull();
    // first's call marker carried start's record, slow's carried note's (run-journal.ts).
    expect(await storedNodes(config, run.body.id)).toEqual(['start', 'first', 'note']);

    inProcess.push(await startWorker(config));
    const finished = await waitForRun(apiUrl, run.body.id, 30_000);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'sum 3' } });
    // first had finished (durable): one call; slow was cut off: called again; third: once.
    expect(counts()).toEqual({ add: before.add + 1, slow: before.slow + 2, echo: before.echo + 1 });
    const logs = await allLogs(apiUrl, run.body.id);
    expect(logs.map((item) => `${item.nodeId}:${item.status}`)).toEqual([
      'start:succeeded',
      'first:succeeded',
      'note:succeeded',
      'slow:succeeded',
      'third:succeeded',
      'end:succeeded',
    ]);
    await expectNoSessions(fixture);
  }, 60_000);

  it('SIGTERM hands the unfinished run back at once (no lock expiry to wait for) and leaves no session open', async () => {
    const stopping = await spawnWorker(config, {
      WORKER_SHUTDOWN_GRACE_MS: '300',
      RUN_LOCK_DURATION_MS: '30000',
      RUN_STALLED_INTERVAL_MS: '30000',
    });
    processes.push(stopping);
    const id = await createWorkflow(apiUrl, crashFlow(ts, 30));
    const before = counts();
    const run = await startRun(apiUrl, id);
    await waitUntil(() => fixture.calls('slow') > before.slow, 15_000, 'the slow node to start in the worker process');
    const began = Date.now();
    stopping.kill('SIGTERM');
    expect(await stopping.exited).toBe(0);
    expect(Date.now() - began).toBeLessThan(5000);
    await expectNoSessions(fixture);
    expect(stopping.output()).toContain('handing 1 unfinished run(s) back to the queue');

    inProcess.push(await startWorker(config));
    // With a 30 s lock, only the hand-back explains a resume this quick.
    const finished = await waitForRun(apiUrl, run.body.id, 10_000);
    expect(finished.status).toBe('succeeded');
    expect(counts()).toEqual({ add: before.add + 1, slow: before.slow + 2, echo: before.echo + 1 });
    const logs = await allLogs(apiUrl, run.body.id);
    expect(logs.map((item) => `${item.nodeId}:${item.status}`)).toEqual([
      'start:succeeded',
      'first:succeeded',
      'slow:canceled',
      'slow:succeeded',
      'third:succeeded',
      'end:succeeded',
    ]);
    await expectNoSessions(fixture);
  }, 60_000);
});

/** Redis losing the run's job (a restart without persistence, a flush): every key of the stack's queue goes. */
async function loseQueueData(config: AppConfig): Promise<void> {
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${config.queuePrefix}:runs:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

describe('durability: the job of a running run is lost with its worker', () => {
  let fixture: FixtureServer;
  const processes: WorkerProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    fixture = await startFixtureServer({ tools: basicTools() });
  });
  afterAll(async () => {
    for (const worker of processes) {
      worker.kill('SIGKILL');
      await worker.exited;
    }
    for (const cleanup of cleanups.reverse()) await cleanup();
    await fixture.close();
  });

  async function crashAndLoseTheJob(overrides: Record<string, string>) {
    const config = testConfig({ ...FAST_RECOVERY, ...overrides });
    const started = await startApi(config);
    cleanups.push(async () => {
      await started.app.close();
      await dropTestData(config);
    });
    const doomed = await spawnWorker(config);
    processes.push(doomed);
    const ts = await registerToolset(started.url, fixture.url);
    const id = await createWorkflow(started.url, crashFlow(ts, 30));
    const slowBefore = fixture.calls('slow');
    const run = await startRun(started.url, id);
    await waitUntil(() => fixture.calls('slow') > slowBefore, 15_000, 'the slow node to start');
    doomed.kill('SIGKILL');
    await doomed.exited;
    await loseQueueData(config);
    return { config, apiUrl: started.url, runId: run.body.id };
  }

  it('the sweep enqueues the run again and it resumes', async () => {
    const { config, apiUrl, runId } = await crashAndLoseTheJob({});
    const leftover = await recordedSessions(config, runId);
    const worker = await startWorker(config);
    cleanups.push(() => worker.close());
    const finished = await waitForRun(apiUrl, runId, 30_000);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'sum 3' } });
    const logs = await allLogs(apiUrl, runId);
    expect(logs.filter((item) => item.nodeId === 'first')).toHaveLength(1);
    await expectNoSessions(fixture);
    // The killed worker's session was ended and forgotten; the resuming one's, ended with the run, stays on record.
    const recorded = await recordedSessions(config, runId);
    for (const session of leftover) expect(recorded).not.toContainEqual(session);
    expect(recorded).toEqual([{ toolsetId: expect.any(String), sessionId: expect.any(String) }]);
  }, 60_000);

  it('past its deadline, the sweep fails it instead: no run stays running forever', async () => {
    const { config, apiUrl, runId } = await crashAndLoseTheJob({ RUN_DEADLINE_MS: '2000' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const worker = await startWorker(config);
    cleanups.push(() => worker.close());
    const finished = await waitForRun(apiUrl, runId, 15_000);
    expect(finished).toMatchObject({ status: 'failed', error: { code: 'RUN_DEADLINE_EXCEEDED' } });
    // Failing it, the sweep ended the session the killed worker left open.
    await expectNoSessions(fixture);
    expect(await recordedSessions(config, runId)).toEqual([]);
  }, 60_000);
});

describe('durability: Redis is down when the run is accepted', () => {
  let redis: StartedService;
  let config: AppConfig;
  let apiUrl: string;
  let closeAll: () => Promise<void>;
  let fixture: FixtureServer;

  beforeAll(async () => {
    redis = await startRedis();
    config = testConfig({ ...FAST_RECOVERY, REDIS_URL: redis.url });
    const api = await startApi(config);
    const worker = await startWorker(config);
    apiUrl = api.url;
    closeAll = async () => {
      await worker.close();
      await api.app.close();
    };
    fixture = await startFixtureServer({ tools: basicTools() });
  });
  afterAll(async () => {
    await closeAll();
    await fixture.close();
    await dropTestData(config);
    await redis.stop();
  });

  it('stores the run (202 queued), and runs it once Redis is back', async () => {
    const ts = await registerToolset(apiUrl, fixture.url);
    const id = await createWorkflow(apiUrl, {
      name: 'while redis is away',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId: ts, tool: 'echo' }, inputs: { message: { value: 'made it' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    });
    await redis.stop();
    const began = Date.now();
    const accepted = await startRun(apiUrl, id);
    expect(accepted.status).toBe(202);
    expect(accepted.body.status).toBe('queued');
    expect(Date.now() - began).toBeLessThan(3000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await api<RunView>(apiUrl, 'GET', `/runs/${accepted.body.id}`)).body.status).toBe('queued');

    redis = await startRedis(redis.port);
    const finished = await waitForRun(apiUrl, accepted.body.id, 20_000);
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'made it' } });
    await expectNoSessions(fixture);
  }, 30_000);
});
