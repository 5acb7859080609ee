import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Queue, Worker } from 'bullmq';
import { redisConnectionOptions, type AppConfig } from '#workflow';

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
 * The store's share: the fewest database operations a durable run of three nodes needs — insert
 * the run, claim it (guarded), one record per node, finish it (guarded) — on scratch collections
 * of the same database. Returns per-run times (ms) done one at a time, then runs/s with `inFlight`.
 */
export async function storeFloor(mongoUrl: string, count: number, inFlight: number): Promise<{ times: number[]; runsPerSecond: number }> {
  const { default: mongoose } = await import('mongoose');
  const connection = await mongoose.createConnection(mongoUrl, { maxPoolSize: inFlight + 5 }).asPromise();
  const runs = connection.collection('floor_runs');
  const records = connection.collection('floor_executions');
  await records.createIndex({ runId: 1, seq: 1 }, { unique: true });
  const oneRun = async () => {
    const { insertedId } = await runs.insertOne({ status: 'queued', inputs: '{}', claims: 0, createdAt: new Date(), checkedAt: new Date() });
    await runs.findOneAndUpdate({ _id: insertedId, status: { $in: ['queued', 'running'] } }, { $set: { status: 'running', lease: 'l' }, $inc: { claims: 1 } });
    for (let seq = 1; seq <= 3; seq++) await records.insertOne({ runId: insertedId, seq, inputs: '{}', outputs: '{}' });
    await runs.findOneAndUpdate({ _id: insertedId, lease: 'l', status: 'running' }, { $set: { status: 'succeeded' }, $unset: { lease: 1 } });
  };
  try {
    const times: number[] = [];
    for (let index = 0; index < count; index++) {
      const began = performance.now();
      await oneRun();
      times.push(performance.now() - began);
    }
    await runs.deleteMany({});
    await records.deleteMany({});
    return { times, runsPerSecond: await throughput(count, inFlight, oneRun) };
  } finally {
    await connection.dropCollection('floor_runs').catch(() => undefined);
    await connection.dropCollection('floor_executions').catch(() => undefined);
    await connection.close();
  }
}
