import mongoose, { Types } from 'mongoose';
import {
  NODE_EXECUTION_MODEL,
  NodeExecutionRepository,
  NodeExecutionSchema,
  RUN_MCP_SESSION_MODEL,
  RUN_MODEL,
  RunMcpSessionSchema,
  RunRepository,
  RunSchema,
  type NodeExecutionDoc,
  type RunDoc,
} from '#workflow/nest';
import type { ExecutionRecord } from '#workflow';

/**
 * The product's repositories on a connection of their own (the collections and indexes the API
 * and worker use), for benchmarks that need the store without the apps.
 */
export interface BenchStore {
  connection: mongoose.Connection;
  runs: RunRepository;
  /** The `runs` collection's model, for the history's one bulk step. */
  runModel: mongoose.Model<RunDoc>;
  executions: NodeExecutionRepository;
  close(): Promise<void>;
}

export async function openBenchStore(mongoUrl: string): Promise<BenchStore> {
  const connection = await mongoose.createConnection(mongoUrl, { maxPoolSize: 40 }).asPromise();
  const runModel = connection.model<RunDoc>(RUN_MODEL, RunSchema);
  const recordModel = connection.model<NodeExecutionDoc>(NODE_EXECUTION_MODEL, NodeExecutionSchema);
  const sessionModel = connection.model(RUN_MCP_SESSION_MODEL, RunMcpSessionSchema);
  await Promise.all([runModel.init(), recordModel.init(), sessionModel.init()]);
  return {
    connection,
    runs: new RunRepository(runModel),
    runModel,
    executions: new NodeExecutionRepository(recordModel),
    close: () => connection.close(),
  };
}

/** A node record like an echo run's (about 1 KB with its resume state). */
export function benchRecord(runId: string, seq: number): ExecutionRecord {
  const now = Date.now();
  const outputs = {
    result: `Echo: history ${seq}`,
    text: `Echo: history ${seq}`,
    content: [{ type: 'text', text: `Echo: history ${seq}` }],
    isError: false,
  };
  return {
    runId,
    seq,
    nodeId: `n${seq}`,
    type: seq === 2 ? 'mcpTool' : 'template',
    status: 'succeeded',
    attempt: 1,
    startedAt: now,
    finishedAt: now,
    durationMs: 1,
    inputs: { message: 'history' },
    outputs,
    activeHandles: ['out'],
    state: { outputs },
  };
}

async function inParallel(total: number, inFlight: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await task(next++);
    }),
  );
}

/**
 * `count` finished runs of three node records each, spread over `workflowIds`: inserted through
 * RunRepository.insert and NodeExecutionRepository.saveExecutions (the writes a run makes), then
 * marked finished in batches of 500 by one update each. That last step is the one shortcut: the
 * per-run claim and finish on FerretDB v1/SQLite at this size would take tens of minutes — the
 * very cost being measured.
 */
export async function makeHistory(store: BenchStore, count: number, workflowIds: string[]): Promise<void> {
  const ids: Types.ObjectId[] = [];
  await inParallel(count, 16, async (index) => {
    const { run } = await store.runs.insert({
      workflowId: workflowIds[index % workflowIds.length],
      version: 1,
      inputs: { message: `history ${index}` },
    });
    ids.push(new Types.ObjectId(run.id));
    // One insert of the three, as a run's durable write carries the records deferred before it.
    await store.executions.saveExecutions([1, 2, 3].map((seq) => benchRecord(run.id, seq)));
  });
  const statuses = ['succeeded', 'succeeded', 'succeeded', 'failed'] as const;
  for (let offset = 0; offset < ids.length; offset += 500) {
    const batch = ids.slice(offset, offset + 500);
    const status = statuses[(offset / 500) % statuses.length];
    const now = new Date();
    await store.runModel.updateMany(
      { _id: { $in: batch } },
      {
        $set: {
          status,
          startedAt: now,
          finishedAt: now,
          durationMs: 5,
          claims: 1,
          outputs: '{"echoed":"history"}',
          stats: { nodesExecuted: 3, nodesSkipped: 0, nodesFailed: 0 },
        },
      },
    );
  }
}

/**
 * A history made in a minute leaves the store where one made over weeks never is: PostgreSQL's
 * autovacuum has not yet visited the 40,000 new rows, and visits them — on the same 2 CPUs — while
 * the next figures are taken. On FerretDB, `compact` (VACUUM ANALYZE there) does now what
 * autovacuum does meanwhile in a real installation. MongoDB needs nothing: left alone.
 */
export async function settleHistory(store: BenchStore): Promise<void> {
  const info = (await store.connection.db?.admin().command({ buildInfo: 1 })) as { ferretdbVersion?: string } | undefined;
  if (typeof info?.ferretdbVersion !== 'string') return;
  for (const collection of ['runs', 'node_executions', 'run_mcp_sessions'])
    await store.connection.db?.command({ compact: collection }).catch(() => undefined);
}
