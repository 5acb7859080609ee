/**
 * Store benchmark (`npm run bench:store`): FerretDB v1 on SQLite against FerretDB v1 on
 * PostgreSQL (Debian's), for the product's own operations through its repositories — claim,
 * node record, finish, log read, run list by workflow and status — on an empty store and with
 * HISTORY finished runs stored (three node records each). Both backends in one run, on this
 * machine; prints a table, writes bench/results/store.json. Needs FERRETDB_BIN and
 * FERRETDB_POSTGRESQL_URL (the npm script starts a throwaway PostgreSQL on loopback).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Types } from 'mongoose';
import { startFerretDb } from '../test/support/services.js';
import { benchRecord, makeHistory, openBenchStore, type BenchStore } from './store-history.js';

const HISTORY = Number(process.env.BENCH_HISTORY ?? 10_000);
const SAMPLES = 40;
const WORKFLOWS = 20;
const RESULTS_FILE = 'bench/results/store.json';

type Operation = 'claim' | 'nodeRecord' | 'finish' | 'logRead' | 'listByWorkflowAndStatus';
type Figures = Record<Operation, { p50: number; p95: number }>;

const round = (value: number) => Number(value.toFixed(2));
const percentile = (times: number[], p: number) =>
  round([...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * p))]);

async function timed(times: number[], work: () => Promise<unknown>): Promise<void> {
  const began = performance.now();
  await work();
  times.push(performance.now() - began);
}

/** SAMPLES runs through the worker's path, one at a time, each operation timed on its own. */
async function measure(store: BenchStore, workflowIds: string[]): Promise<Figures> {
  const times: Record<Operation, number[]> = { claim: [], nodeRecord: [], finish: [], logRead: [], listByWorkflowAndStatus: [] };
  for (let index = 0; index < SAMPLES; index++) {
    const { run: inserted } = await store.runs.insert({ workflowId: workflowIds[0], version: 1, inputs: { message: 'measured' } });
    const runId = inserted.id;
    let claimed: Awaited<ReturnType<typeof store.runs.claim>>;
    await timed(times.claim, async () => (claimed = await store.runs.claim(runId, 'lease')));
    if (!claimed) throw new Error('claim failed');
    for (let seq = 1; seq <= 3; seq++) await timed(times.nodeRecord, () => store.executions.saveExecution(benchRecord(runId, seq)));
    const run = claimed;
    await timed(times.finish, async () => {
      if (!(await store.runs.finish(run, 'lease', { status: 'succeeded', outputs: { echoed: 'x' }, finishedAt: new Date() })))
        throw new Error('finish failed');
    });
    await timed(times.logRead, () => store.executions.logAfter(runId, 0, 51));
    // GET /runs?workflowId&status: newest first, a page of 50 (+1 to know about the next page).
    await timed(times.listByWorkflowAndStatus, () => store.runs.page({ workflowId: workflowIds[1], status: 'succeeded' }, { limit: 50 }));
  }
  const figures = {} as Figures;
  for (const [operation, samples] of Object.entries(times) as [Operation, number[]][])
    figures[operation] = { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
  return figures;
}

/** What FerretDB says it hands to its backend for the reads the product makes (explain's pushdown flags). */
async function pushdown(store: BenchStore, workflowId: string): Promise<Record<string, unknown>> {
  const db = store.connection.db;
  if (!db) return {};
  const explain = async (collection: string, filter: Record<string, unknown>, sort?: Record<string, 1 | -1>) => {
    const answer = (await db.command({ explain: { find: collection, filter, ...(sort && { sort }), limit: 51 } })) as Record<
      string,
      unknown
    >;
    const { filterPushdown, sortPushdown, limitPushdown } = answer;
    return { filterPushdown, sortPushdown, limitPushdown };
  };
  const someRun = await store.runModel.findOne({}, { _id: 1 }).lean();
  return {
    runById: await explain('runs', { _id: someRun?._id }),
    logOfRun: await explain('node_executions', { runId: someRun?._id }, { seq: 1 }),
    listByWorkflowAndStatus: await explain('runs', { workflowId: new Types.ObjectId(workflowId), status: 'succeeded' }, { _id: -1 }),
  };
}

async function benchBackend(name: 'sqlite' | 'postgresql', postgresqlUrl?: string) {
  const ferret = await startFerretDb(postgresqlUrl ? { postgresqlUrl } : { sqlite: true });
  const url = new URL(ferret.url);
  url.pathname = `/store_bench_${name}_${Date.now()}`;
  const store = await openBenchStore(url.toString());
  try {
    const workflowIds = Array.from({ length: WORKFLOWS }, () => new Types.ObjectId().toHexString());
    const empty = await measure(store, workflowIds);
    const began = performance.now();
    await makeHistory(store, HISTORY, workflowIds);
    const historySeconds = round((performance.now() - began) / 1000);
    const withHistory = await measure(store, workflowIds);
    return { backend: name, empty, withHistory, historySeconds, pushdown: await pushdown(store, workflowIds[1]) };
  } finally {
    await store.connection.dropDatabase().catch(() => undefined);
    await store.close();
    await ferret.stop();
  }
}

async function main(): Promise<void> {
  const postgresqlUrl = process.env.FERRETDB_POSTGRESQL_URL;
  if (!postgresqlUrl) throw new Error('FERRETDB_POSTGRESQL_URL is not set: run `npm run bench:store`');
  // BENCH_BACKENDS=postgresql measures one backend only (SQLite takes ~30 min to fill at 10,000 runs).
  const backends = (process.env.BENCH_BACKENDS ?? 'sqlite,postgresql').split(',');
  const results = [];
  if (backends.includes('sqlite')) results.push(await benchBackend('sqlite'));
  if (backends.includes('postgresql')) results.push(await benchBackend('postgresql', postgresqlUrl));
  const rows = results.flatMap((result) =>
    (Object.keys(result.empty) as Operation[]).map((operation) => ({
      backend: result.backend,
      operation,
      [`p50 at 0`]: result.empty[operation].p50,
      [`p50 at ${HISTORY}`]: result.withHistory[operation].p50,
      [`p95 at ${HISTORY}`]: result.withHistory[operation].p95,
      growth: round(result.withHistory[operation].p50 / result.empty[operation].p50),
    })),
  );
  console.table(rows);
  for (const result of results)
    console.log(result.backend, 'history made in', result.historySeconds, 's; pushdown', JSON.stringify(result.pushdown));
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    RESULTS_FILE,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), history: HISTORY, samples: SAMPLES, unit: 'ms', results }, null, 2)}\n`,
  );
  console.log(`written to ${RESULTS_FILE}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
