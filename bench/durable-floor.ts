import { Queue, Worker } from 'bullmq';
import { Types, type Model } from 'mongoose';
import { redisConnectionOptions, RunRepository, type AppConfig, type RunDoc } from '#workflow/nest';
import { rawMcpClient, throughput } from './runs-floor.js';

/**
 * The durable floor of a run (issue 14): what any durable design needs at least, on the same
 * machine, Redis, MCP server and store — a BullMQ job that opens a fresh MCP session, makes the
 * call, closes the session (DELETE), and makes two store writes on the `runs` collection the
 * product uses: the run's insert (RunRepository.insert) and its finish (one update by `_id`).
 */
export interface DurableFloor {
  /** One job at a time: add → completed, ms. */
  times: number[];
  /** Jobs per second with `inFlight` jobs at once. */
  jobsPerSecond: number;
}

export async function measureDurableFloor(
  config: AppConfig,
  runModel: Model<RunDoc>,
  mcpUrl: string,
  samples: number,
  jobs: number,
  inFlight: number,
): Promise<DurableFloor> {
  const runs = new RunRepository(runModel);
  const workflowId = '0123456789abcdef01234567';
  let index = 0;
  const work = async () => {
    const { run } = await runs.insert({ workflowId, version: 1, inputs: { message: `floor ${index}` } });
    const client = await rawMcpClient(mcpUrl);
    await client.echo(`floor ${index++}`);
    await client.close();
    await runModel.updateOne(
      { _id: new Types.ObjectId(run.id) },
      { $set: { status: 'succeeded', finishedAt: new Date(), durationMs: 1, outputs: '{"echoed":"floor"}' } },
    );
  };
  const name = 'bench-durable-floor';
  const connection = redisConnectionOptions(config, true);
  const queue = new Queue(name, { connection, prefix: config.queuePrefix });
  const worker = new Worker(name, work, { connection, prefix: config.queuePrefix, concurrency: inFlight });
  const waiting = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  const settle = (id: string | undefined, error?: Error) => {
    const entry = waiting.get(String(id));
    waiting.delete(String(id));
    if (error) entry?.reject(error);
    else entry?.resolve();
  };
  worker.on('completed', (job) => settle(job.id));
  worker.on('failed', (job, error) => settle(job?.id, error));
  await worker.waitUntilReady();
  let next = 0;
  const job = async () => {
    const id = `durable-floor-${next++}`;
    const done = new Promise<void>((resolve, reject) => waiting.set(id, { resolve, reject }));
    await queue.add('floor', {}, { jobId: id, removeOnComplete: true });
    await done;
  };
  try {
    for (let warmUp = 0; warmUp < 10; warmUp++) await job();
    const times: number[] = [];
    for (let sample = 0; sample < samples; sample++) {
      const began = performance.now();
      await job();
      times.push(performance.now() - began);
    }
    return { times, jobsPerSecond: await throughput(jobs, inFlight, job) };
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
    // The floor's runs leave the history as they found it.
    await runModel.deleteMany({ workflowId });
  }
}
