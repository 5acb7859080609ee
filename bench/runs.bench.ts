/**
 * Runs benchmark (`npm run bench:runs`), everything on loopback in one run:
 *   (a) engine overhead: a 1000-node chain of no-op nodes in memory, µs per node;
 *   (b) end-to-end latency of `start → mcpTool(echo) → end`, POST to terminal (`?wait`), p50/p95,
 *       beside its floor: BullMQ add→completed p50 + one raw MCP call p50;
 *   (c) throughput in runs/s with ONE worker process, beside the floor's: BullMQ jobs that each
 *       make one raw MCP call, with as many in flight;
 *   (d) the shares a durable run cannot avoid, on the same machine: its own MCP session (connect,
 *       call, DELETE) and the store's writes of one run, each alone.
 * Prints a table and writes bench/results/runs.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { measureEngineOverhead } from './engine.bench.js';
import {
  floorThroughput,
  rawMcpClient,
  storeFloor,
  throughput,
  timeBullmqJobs,
  timeRawMcpCalls,
  timeRawMcpSessions,
} from './runs-floor.js';
import { createEchoWorkflow, percentile, round, timeRun as timeRunAt } from './run-client.js';
import { startBenchStack, type BenchStack } from './runs-stack.js';

const timeRun = (stack: BenchStack, workflowId: string, index: number) => timeRunAt(stack.apiUrl, workflowId, index);

const ENGINE_NODES = 1000;
const WARM_UP_RUNS = 20;
const LATENCY_RUNS = 200;
const FLOOR_SAMPLES = 300;
const THROUGHPUT_RUNS = 300;
const IN_FLIGHT = 20;
const RESULTS_FILE = 'bench/results/runs.json';
/** The whole benchmark must end well within this. */
const TIME_LIMIT_MS = 10 * 60_000;

async function main() {
  const engine = await measureEngineOverhead({ nodes: ENGINE_NODES });
  const stack = await startBenchStack(IN_FLIGHT);
  try {
    const workflowId = await createEchoWorkflow(stack.apiUrl, stack.fixture.url);
    for (let index = 0; index < WARM_UP_RUNS; index++) await timeRun(stack, workflowId, index);
    const runTimes: number[] = [];
    for (let index = 0; index < LATENCY_RUNS; index++) runTimes.push(await timeRun(stack, workflowId, index));

    const client = await rawMcpClient(stack.fixture.url);
    await timeRawMcpCalls(client, WARM_UP_RUNS);
    const mcpTimes = await timeRawMcpCalls(client, FLOOR_SAMPLES);
    await timeRawMcpSessions(stack.fixture.url, WARM_UP_RUNS);
    const sessionTimes = await timeRawMcpSessions(stack.fixture.url, FLOOR_SAMPLES);
    const jobTimes = await timeBullmqJobs(stack.config, FLOOR_SAMPLES);

    await stack.clearRuns();
    let next = 0;
    const runsPerSecond = await throughput(THROUGHPUT_RUNS, IN_FLIGHT, async () => void (await timeRun(stack, workflowId, next++)));
    const floorJobsPerSecond = await floorThroughput(stack.config, client, THROUGHPUT_RUNS, IN_FLIGHT);
    await client.close();
    const store = await storeFloor(stack.config.mongoUrl, THROUGHPUT_RUNS, IN_FLIGHT);

    const floorP50 = percentile(jobTimes, 0.5) + percentile(mcpTimes, 0.5);
    return {
      measuredAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      database: stack.database,
      mcpServer: 'fixture MCP server (bare SDK, Streamable HTTP) on 127.0.0.1, tool "echo"',
      engine: { nodes: engine.nodes, totalMs: engine.totalMs, perNodeMicros: engine.perNodeMicros },
      latency: {
        workflow: 'start → mcpTool(echo) → end, POST …/runs?wait → 200 succeeded',
        runs: LATENCY_RUNS,
        p50Ms: percentile(runTimes, 0.5),
        p95Ms: percentile(runTimes, 0.95),
        floor: { bullmqAddToCompletedP50Ms: percentile(jobTimes, 0.5), mcpCallP50Ms: percentile(mcpTimes, 0.5), p50Ms: round(floorP50) },
        ratio_p50_vs_floor: round(percentile(runTimes, 0.5) / floorP50),
      },
      throughput: {
        runs: THROUGHPUT_RUNS,
        inFlight: IN_FLIGHT,
        workerProcesses: 1,
        workerConcurrency: IN_FLIGHT,
        runsPerSecond: round(runsPerSecond, 1),
        floor: { jobsWithOneMcpCallPerSecond: round(floorJobsPerSecond, 1) },
        ratio_vs_floor: round(runsPerSecond / floorJobsPerSecond, 3),
      },
      session: {
        what: 'a fresh MCP session per run with the bare SDK client: connect (initialize), one echo call, DELETE; sequential',
        p50Ms: percentile(sessionTimes, 0.5),
      },
      store: {
        what: "the store writes of a durable 3-node run through the product's repositories (insert, claim, session record, 3 node records, finish), same database, no API/queue/MCP",
        p50Ms: percentile(store.times, 0.5),
        runsPerSecondInFlight: round(store.runsPerSecond, 1),
      },
      sessionsLeaked: stack.fixture.sessions(),
    };
  } finally {
    await stack.close();
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench:runs did not finish within ${TIME_LIMIT_MS / 60_000} min`);
  process.exit(1);
}, TIME_LIMIT_MS);
watchdog.unref();

const result = await main();
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
console.log(`database: ${result.database}; ${result.cpus} CPUs; Node ${result.node}`);
console.table([
  {
    measure: `engine: ${result.engine.nodes} no-op nodes in memory`,
    ours: `${result.engine.perNodeMicros} µs/node`,
    floor: '—',
    ratio: '—',
  },
  {
    measure: 'run latency p50 (POST → succeeded)',
    ours: `${result.latency.p50Ms} ms`,
    floor: `${result.latency.floor.p50Ms} ms`,
    ratio: result.latency.ratio_p50_vs_floor,
  },
  { measure: 'run latency p95', ours: `${result.latency.p95Ms} ms`, floor: '—', ratio: '—' },
  {
    measure: `throughput, 1 worker, ${IN_FLIGHT} in flight`,
    ours: `${result.throughput.runsPerSecond} runs/s`,
    floor: `${result.throughput.floor.jobsWithOneMcpCallPerSecond} jobs/s`,
    ratio: result.throughput.ratio_vs_floor,
  },
  { measure: 'MCP session alone: connect + call + DELETE', ours: '—', floor: `${result.session.p50Ms} ms p50`, ratio: '—' },
  {
    measure: 'store alone: durable writes of one run',
    ours: '—',
    floor: `${result.store.p50Ms} ms p50, ${result.store.runsPerSecondInFlight} runs/s`,
    ratio: '—',
  },
]);
console.log(
  `floor p50 = BullMQ add→completed ${result.latency.floor.bullmqAddToCompletedP50Ms} ms + raw MCP call ${result.latency.floor.mcpCallP50Ms} ms; MCP sessions left open: ${result.sessionsLeaked}`,
);
console.log(`written to ${RESULTS_FILE}`);
process.exit(0);
