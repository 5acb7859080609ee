import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Queue, Worker } from 'bullmq';
import { type ExecutionRecord } from '#workflow';
import {
  NodeExecutionRepository,
  NodeExecutionSchema,
  redisConnectionOptions,
  RunMcpSessionSchema,
  RunRepository,
  RunSchema,
  RunSessionRepository,
  type AppConfig,
  type NodeExecutionDoc,
  type RunDoc,
  type RunMcpSessionRecordDoc,
} from '#workflow/nest';

/**
 * The floor of a run: what any design needs at least — one BullMQ job through Redis and one MCP
 * tool call — measured on the same machine, Redis and MCP server as the run itself.
 */
export interface RawMcpClient {
  echo(message: string): Promise<void>;
  close(): Promise<void>;
}

export async function rawMcpClient(url: string): Promise<RawMcpClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'bench-floor', version: '1.0.0' });
  await client.connect(transport);
  return {
    echo: async (message) => {
      await client.callTool({ name: 'echo', arguments: { message } });
    },
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

/**
 * What a run's own MCP session costs at least (SPEC §1: one per run, ended with the run): connect
 * (initialize), one call, DELETE, with the bare SDK client, sequentially: per-session times (ms).
 */
export async function timeRawMcpSessions(url: string, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const began = performance.now();
    const client = await rawMcpClient(url);
    await client.echo(`session ${index}`);
    await client.close();
    times.push(performance.now() - began);
  }
  return times;
}

/** One MCP call on an open connection, sequentially: per-call times (ms). */
export async function timeRawMcpCalls(client: RawMcpClient, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let index = 0; index < count; index++) {
    const began = performance.now();
    await client.echo(`floor ${index}`);
    times.push(performance.now() - began);
  }
  return times;
}

/** A BullMQ queue and worker of its own; `job(work)` resolves when the worker completed it. */
async function floorQueue(config: AppConfig, concurrency: number, work: () => Promise<void>) {
  const name = 'bench-floor';
  const connection = redisConnectionOptions(config, true);
  const queue = new Queue(name, { connection, prefix: config.queuePrefix });
  const waiting = new Map<string, () => void>();
  const worker = new Worker(name, work, { connection, prefix: config.queuePrefix, concurrency });
  worker.on('completed', (job) => {
    waiting.get(String(job.id))?.();
    waiting.delete(String(job.id));
  });
  await worker.waitUntilReady();
  let next = 0;
  return {
    job: async () => {
      const id = `floor-${next++}`;
      const done = new Promise<void>((resolve) => waiting.set(id, resolve));
      await queue.add('floor', {}, { jobId: id, removeOnComplete: true });
      await done;
    },
    close: async () => {
      await worker.close();
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}

/** BullMQ add → completed of a no-op job, sequentially: per-job times (ms). */
export async function timeBullmqJobs(config: AppConfig, count: number): Promise<number[]> {
  const floor = await floorQueue(config, 1, async () => undefined);
  try {
    const times: number[] = [];
    for (let index = 0; index < count; index++) {
      const began = performance.now();
      await floor.job();
      times.push(performance.now() - began);
    }
    return times;
  } finally {
    await floor.close();
  }
}

/** Jobs per second when each job makes one MCP call, `concurrency` jobs in flight: the throughput floor. */
export async function floorThroughput(config: AppConfig, client: RawMcpClient, jobs: number, concurrency: number): Promise<number> {
  const floor = await floorQueue(config, concurrency, () => client.echo('floor'));
  try {
    return await throughput(jobs, concurrency, () => floor.job());
  } finally {
    await floor.close();
  }
}

/** Runs `total` tasks with `concurrency` in flight; tasks per second. */
export async function throughput(total: number, concurrency: number, task: () => Promise<void>): Promise<number> {
  let started = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < total) {
        started += 1;
        await task();
      }
    }),
  );
  return (total * 1000) / (performance.now() - began);
}

/**
 * The store's share: the writes a durable run of three nodes makes, through the product's own
 * repositories (so with the same guarded transitions) on scratch collections of the same database
 * — insert the run, claim it, record its MCP session, one record per node, finish it, forget the
 * session. Returns per-run times (ms) done one at a time, then runs/s with `inFlight`. The worker
 * overlaps some of these with other work (the claim with connecting); here they are back to back.
 */
export async function storeFloor(mongoUrl: string, count: number, inFlight: number): Promise<{ times: number[]; runsPerSecond: number }> {
  const { default: mongoose } = await import('mongoose');
  const connection = await mongoose.createConnection(mongoUrl, { maxPoolSize: inFlight + 5 }).asPromise();
  const runModel = connection.model<RunDoc>('FloorRun', RunSchema, 'floor_runs');
  const recordModel = connection.model<NodeExecutionDoc>('FloorExecution', NodeExecutionSchema, 'floor_executions');
  const sessionModel = connection.model<RunMcpSessionRecordDoc>('FloorSession', RunMcpSessionSchema, 'floor_sessions');
  await Promise.all([runModel.init(), recordModel.init(), sessionModel.init()]);
  const runs = new RunRepository(runModel);
  const sessions = new RunSessionRepository(sessionModel);
  const executions = new NodeExecutionRepository(recordModel);
  const workflowId = new mongoose.Types.ObjectId().toHexString();
  const record = (runId: string, seq: number): ExecutionRecord => {
    const now = Date.now();
    return {
      runId,
      seq,
      nodeId: `n${seq}`,
      type: 'template',
      status: 'succeeded',
      attempt: 1,
      startedAt: now,
      finishedAt: now,
      durationMs: 0,
      inputs: {},
      outputs: { text: 'x' },
      activeHandles: ['out'],
      state: { outputs: { text: 'x' } },
    };
  };
  const oneRun = async () => {
    const { run: inserted } = await runs.insert({ workflowId, version: 1, inputs: { message: 'floor' } });
    const runId = inserted.id;
    const run = await runs.claim(runId, 'lease');
    if (!run) throw new Error('store floor: claim failed');
    const session = { toolsetId: 'floor', sessionId: runId };
    await sessions.record(run.id, session);
    for (let seq = 1; seq <= 3; seq++) await executions.saveExecution(record(runId, seq));
    if (!(await runs.finish(run, 'lease', { status: 'succeeded', outputs: { echoed: 'floor' }, finishedAt: new Date() })))
      throw new Error('store floor: finish failed');
    await sessions.forget(run.id, [session]);
  };
  try {
    const times: number[] = [];
    for (let index = 0; index < count; index++) {
      const began = performance.now();
      await oneRun();
      times.push(performance.now() - began);
    }
    await runModel.deleteMany({});
    await recordModel.deleteMany({});
    return { times, runsPerSecond: await throughput(count, inFlight, oneRun) };
  } finally {
    await connection.dropCollection('floor_runs').catch(() => undefined);
    await connection.dropCollection('floor_executions').catch(() => undefined);
    await connection.dropCollection('floor_sessions').catch(() => undefined);
    await connection.close();
  }
}
