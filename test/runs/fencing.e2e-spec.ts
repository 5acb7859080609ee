import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { Redis } from 'ioredis';
import mongoose, { type Connection } from 'mongoose';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer, type FixtureTool } from '#mcp/testing';
import type { ExecutionRecord } from '#workflow';
import { NodeExecutionSchema, RunJournal, StaleClaimError, type AppConfig, type NodeExecutionDoc } from '#workflow/nest';
import { allLogs, createWorkflow, FAST_RECOVERY, registerToolset, startRun, waitForRun } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

const record = (runId: string, seq: number, nodeId: string): ExecutionRecord => ({
  runId,
  seq,
  nodeId,
  type: 'mcpTool',
  status: 'succeeded',
  attempt: 1,
  startedAt: 1,
  finishedAt: 2,
  durationMs: 1,
  inputs: {},
  outputs: { text: nodeId },
  activeHandles: ['out'],
  state: { outputs: { text: nodeId } },
});

describe('fencing: two claims of one run, on the real store', () => {
  let config: AppConfig;
  let connection: Connection;
  let executions: mongoose.Model<NodeExecutionDoc>;

  beforeAll(async () => {
    config = testConfig();
    connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 5000 }).asPromise();
    executions = connection.model<NodeExecutionDoc>('NodeExecution', NodeExecutionSchema);
  });
  afterAll(async () => {
    await connection.close();
    await dropTestData(config);
  });

  it('once a second claim has landed, every write of the first is refused by the store, and nothing is replaced', async () => {
    const runId = new mongoose.Types.ObjectId().toHexString();
    const first = await RunJournal.claim(executions, runId, true);
    await first.appendRecords([record(runId, 1, 'a')]);
    await first.markCall('b', first.callKey('b'));

    const second = await RunJournal.claim(executions, runId, true);
    expect(second.epoch).toBeGreaterThan(first.epoch);
    expect(second.records.map((item) => item.nodeId)).toEqual(['a']);
    // The first claim's call of `b` left no outcome: the second sees it in doubt, under the same key.
    expect(second.callKey('b')).toBe(first.callKey('b'));
    expect(second.inDoubt('b')).toBe(true);
    expect(second.inDoubt('a')).toBe(false);

    await expect(first.appendRecords([record(runId, 2, 'b')])).rejects.toBeInstanceOf(StaleClaimError);
    await expect(first.markCall('c', first.callKey('c'))).rejects.toBeInstanceOf(StaleClaimError);
    await expect(first.markEnd({ status: 'succeeded', finishedAt: new Date() })).rejects.toBeInstanceOf(StaleClaimError);

    await second.appendRecords([record(runId, 2, 'b')]);
    const stored = await executions
      .find({ runId, seq: { $gt: 0 } })
      .sort({ seq: 1 })
      .lean();
    expect(stored.map((doc) => [doc.nodeId, doc.epoch])).toEqual([
      ['a', first.epoch],
      ['b', second.epoch],
    ]);
  });

  it('claims racing at once: each gets its own epoch, and only the latest may write', async () => {
    const runId = new mongoose.Types.ObjectId().toHexString();
    const claims = await Promise.all([1, 2, 3, 4].map(() => RunJournal.claim(executions, runId, true)));
    const epochs = claims.map((claim) => claim.epoch);
    expect(new Set(epochs).size).toBe(4);
    const latest = claims.find((claim) => claim.epoch === Math.max(...epochs));
    const outcomes = await Promise.allSettled(claims.map((claim) => claim.appendRecords([record(runId, 1, `by-${claim.epoch}`)])));
    const written = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [claims[index].epoch] : []));
    expect(written).toEqual([latest?.epoch]);
  });

  it('a claim that lands after the terminal write finishes the run from it instead of executing it', async () => {
    const runId = new mongoose.Types.ObjectId().toHexString();
    const first = await RunJournal.claim(executions, runId, true);
    const finishedAt = new Date('2026-11-26T08:00:00Z');
    await first.markEnd({ status: 'succeeded', outputs: { said: 'hi' }, finishedAt, executions: [record(runId, 1, 'end')] });
    const second = await RunJournal.claim(executions, runId, false);
    expect(second.ended).toMatchObject({ status: 'succeeded', outputs: { said: 'hi' }, finishedAt });
    expect(second.ended?.executions?.map((item) => item.nodeId)).toEqual(['end']);
  });
});

/** Redis losing the run's job (a restart without persistence): every key of the stack's queue goes. */
async function loseQueueData(config: AppConfig): Promise<void> {
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${config.queuePrefix}:runs:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** `slow`, also keeping the idempotency key each call carried in `_meta`. */
function keyedSlow(keys: unknown[]): FixtureTool {
  const slow = basicTools().find((tool) => tool.name === 'slow') as FixtureTool;
  return {
    ...slow,
    name: 'keyed_slow',
    handler: (args, context) => {
      keys.push(context.meta?.['mcpflow/idempotencyKey']);
      return slow.handler(args, context);
    },
  };
}

/** start → first (add) → slow (keyed_slow, 4 s) → third (echo) → end; `slow` caught → recover → end_caught. */
function takeoverFlow(ts: string, slow: Record<string, unknown>) {
  const nodes = [
    { id: 'start', type: 'start' },
    { id: 'first', type: 'mcpTool', config: { toolsetId: ts, tool: 'add' }, inputs: { a: { value: 1 }, b: { value: 2 } } },
    {
      id: 'slow',
      type: 'mcpTool',
      config: { toolsetId: ts, tool: 'keyed_slow' },
      inputs: { steps: { value: 40 }, stepMs: { value: 100 } },
      catchError: true,
      ...slow,
    },
    { id: 'third', type: 'mcpTool', config: { toolsetId: ts, tool: 'echo' }, inputs: { message: { value: 'third' } } },
    { id: 'recover', type: 'template', inputs: { text: { template: 'caught {{slow.error.code}}' } } },
    { id: 'end', type: 'end', inputs: { said: { ref: 'third.text' } } },
    { id: 'end_caught', type: 'end', inputs: { said: { ref: 'recover.text' } } },
  ];
  const edges = [
    { source: 'start', target: 'first' },
    { source: 'first', target: 'slow' },
    { source: 'slow', target: 'third' },
    { source: 'third', target: 'end' },
    { source: 'slow', sourceHandle: 'error', target: 'recover' },
    { source: 'recover', target: 'end_caught' },
  ];
  return { name: 'takeover', nodes, edges };
}

describe('fencing: Redis loses the job of a run a worker is executing', () => {
  let fixture: FixtureServer;
  const keys: unknown[] = [];
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    fixture = await startFixtureServer({ tools: [...basicTools(), keyedSlow(keys)] });
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await fixture.close();
  });

  /**
   * Worker A executes the run; after `first` is recorded and while `slow` runs, Redis loses the
   * job. A does not notice (its lock renewal is far off), a second worker's sweep enqueues the run
   * again and takes it: two executions of one run at once, as the chaos harness saw after Redis restarts.
   */
  async function twoExecutions(slow: Record<string, unknown>) {
    // A long lock: worker A keeps executing after the job is gone, as it would until its next renewal.
    const config = testConfig({ ...FAST_RECOVERY, RUN_LOCK_DURATION_MS: '120000', RUN_STALLED_INTERVAL_MS: '60000' });
    const api = await startApi(config);
    const apps: INestApplicationContext[] = [await startWorker(config)];
    cleanups.push(async () => {
      for (const app of apps) await app.close();
      await api.app.close();
      await dropTestData(config);
    });
    const ts = await registerToolset(api.url, fixture.url);
    const workflowId = await createWorkflow(api.url, takeoverFlow(ts, slow));
    const before = { first: fixture.calls('add'), slow: fixture.calls('keyed_slow'), third: fixture.calls('echo') };
    keys.length = 0;
    const run = await startRun(api.url, workflowId);
    expect(run.status).toBe(202);
    await waitUntil(() => fixture.calls('keyed_slow') > before.slow, 15_000, 'the slow node to start');
    await loseQueueData(config);
    apps.push(await startWorker(config));
    const finished = await waitForRun(api.url, run.body.id, 60_000);
    const calls = {
      first: fixture.calls('add') - before.first,
      slow: fixture.calls('keyed_slow') - before.slow,
      third: fixture.calls('echo') - before.third,
    };
    return { finished, calls, logs: await allLogs(api.url, run.body.id) };
  }

  it('the call recorded before the takeover is not repeated; the in-doubt call is resent (retry policy) under its key; every node runs once', async () => {
    const { finished, calls, logs } = await twoExecutions({ retry: { maxAttempts: 2, backoffMs: 100 } });
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'third' } });
    expect(calls).toEqual({ first: 1, slow: 2, third: 1 });
    expect(new Set(keys).size).toBe(1);
    expect(String(keys[0])).toMatch(new RegExp(`^${finished.id}:slow:1$`));
    const ran = logs.filter((item) => item.status !== 'skipped').map((item) => item.nodeId);
    expect(ran).toEqual(['start', 'first', 'slow', 'third', 'end']);
  }, 90_000);

  it('without a retry policy the in-doubt call is not resent: the node fails MCP_CALL_IN_DOUBT, which catchError routes', async () => {
    const { finished, calls, logs } = await twoExecutions({});
    expect(finished).toMatchObject({ status: 'succeeded', outputs: { said: 'caught MCP_CALL_IN_DOUBT' } });
    expect(calls).toEqual({ first: 1, slow: 1, third: 0 });
    expect(logs.find((item) => item.nodeId === 'slow')).toMatchObject({ status: 'failed', error: { code: 'MCP_CALL_IN_DOUBT' } });
  }, 90_000);
});
