/**
 * Scale benchmark (`npm run bench:scale`, issues 14 and 28), all in one run on loopback: run latency
 * p50/p95 (POST …/runs?wait, `start → mcpTool(echo) → end`, one at a time) and throughput (20 runs
 * in flight) with one worker process and with two, on an empty store and with 10,000 finished
 * runs made through the product's own repositories (then settled: what autovacuum does meanwhile in
 * an installation whose history grew over weeks); and the durable floor at each size (a BullMQ
 * job: fresh MCP session, the call, DELETE, a run insert and its finish on the same store).
 * Around each phase, the CPU ms per run of each process of the stack (API, worker(s), FerretDB,
 * PostgreSQL with its backends, Redis: bench/process-cpu.ts); on the empty store, the same run on a
 * stateless (2026-07-28) server beside the session server (bench/generations-phase.ts).
 * Goals, printed: p50 ≤ 1.3× the floor's; p50 at 10,000 ≤ 1.3× p50 at 0; throughput ≥ 0.8× the
 * floor's; CPU ≤ 18 ms per run. Writes bench/results/scale.json. Timings are never asserted anywhere.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { measureDurableFloor } from './durable-floor.js';
import { compareGenerations, type GenerationFigures } from './generations-phase.js';
import { cpuPerRun, sampleCpu, tickMs, type MeteredProcess } from './process-cpu.js';
import { createEchoWorkflow, percentile, round, timeRun } from './run-client.js';
import { throughput } from './runs-floor.js';
import { startBenchStack } from './runs-stack.js';
import { makeHistory, openBenchStore, settleHistory } from './store-history.js';
import { spawnWorker } from '../test/support/worker-process.js';

const HISTORY = Number(process.env.SCALE_HISTORY ?? 10_000);
const WARM_UP = 10;
const LATENCY_RUNS = Number(process.env.SCALE_LATENCY_RUNS ?? 60);
const THROUGHPUT_RUNS = Number(process.env.SCALE_THROUGHPUT_RUNS ?? 200);
const FLOOR_SAMPLES = 60;
const IN_FLIGHT = 20;
/** SCALE_GENERATIONS=0 leaves out the stateless server's run beside the session server's. */
const GENERATIONS = process.env.SCALE_GENERATIONS !== '0';
const IDLE_SECONDS = 10;
const RESULTS_FILE = 'bench/results/scale.json';
const TIME_LIMIT_MS = 12 * 60_000;
/** Retention would prune the history while it is measured: off for the workers of this benchmark. */
const NO_RETENTION = { RUN_RETENTION_MAX_AGE: '0', RUN_RETENTION_MAX_COUNT: '0' };

interface Phase {
  stored: number;
  workers: number;
  p50Ms: number;
  p95Ms: number;
  runsPerSecond: number;
  /** CPU ms per run of each of the stack's processes and their total, one at a time and 20 in flight. */
  cpuMsPerRun: { sequential: Record<string, number>; inFlight: Record<string, number> };
}

interface Floor {
  stored: number;
  p50Ms: number;
  p95Ms: number;
  jobsPerSecond: number;
}

async function main() {
  const load = [loadavg()[0]];
  const stack = await startBenchStack(IN_FLIGHT, NO_RETENTION);
  const store = await openBenchStore(stack.config.mongoUrl);
  const phases: Phase[] = [];
  const floors: Floor[] = [];
  let index = 0;
  let idleCpuMsPerSecond: Record<string, number> = {};
  let generations: { session: GenerationFigures; stateless: GenerationFigures } | undefined;
  const msPerTick = tickMs();
  let extraWorkers: number[] = [];
  const processes: MeteredProcess[] = stack.processes(() => [stack.worker.pid, ...extraWorkers]);
  /** Runs `work` (`runs` runs) between two samples of the stack's CPU: ms per run by process. */
  const metered = async (runs: number, work: () => Promise<void>) => {
    const before = sampleCpu(processes);
    await work();
    return cpuPerRun(before, sampleCpu(processes), runs, msPerTick);
  };
  try {
    const workflowId = await createEchoWorkflow(stack.apiUrl, stack.fixture.url);
    const measure = async (stored: number, workers: number) => {
      for (let warm = 0; warm < WARM_UP; warm++) await timeRun(stack.apiUrl, workflowId, index++);
      const times: number[] = [];
      const sequential = await metered(LATENCY_RUNS, async () => {
        for (let run = 0; run < LATENCY_RUNS; run++) times.push(await timeRun(stack.apiUrl, workflowId, index++));
      });
      let runsPerSecond = 0;
      const inFlight = await metered(THROUGHPUT_RUNS, async () => {
        runsPerSecond = await throughput(THROUGHPUT_RUNS, IN_FLIGHT, async () => void (await timeRun(stack.apiUrl, workflowId, index++)));
      });
      phases.push({
        stored,
        workers,
        p50Ms: percentile(times, 0.5),
        p95Ms: percentile(times, 0.95),
        runsPerSecond: round(runsPerSecond, 1),
        cpuMsPerRun: { sequential, inFlight },
      });
      console.log(JSON.stringify(phases[phases.length - 1]));
    };
    const floor = async (stored: number) => {
      const measured = await measureDurableFloor(
        stack.config,
        store.runModel,
        stack.fixture.url,
        FLOOR_SAMPLES,
        THROUGHPUT_RUNS,
        IN_FLIGHT,
      );
      const { times, jobsPerSecond } = measured;
      floors.push({ stored, p50Ms: percentile(times, 0.5), p95Ms: percentile(times, 0.95), jobsPerSecond: round(jobsPerSecond, 1) });
      console.log(JSON.stringify(floors[floors.length - 1]));
    };
    const withSecondWorker = async (stored: number) => {
      const second = await spawnWorker(stack.config, NO_RETENTION);
      extraWorkers = [second.pid];
      try {
        await measure(stored, 2);
      } finally {
        extraWorkers = [];
        second.kill('SIGTERM');
        await second.exited;
      }
    };

    await floor(0);
    // What the stack burns with nothing to do (BullMQ's polling, sweeps, PostgreSQL's own workers), to tell apart from a run's cost.
    idleCpuMsPerSecond = await metered(IDLE_SECONDS, () => new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000)));
    console.log(JSON.stringify({ idleCpuMsPerSecond }));
    await measure(0, 1);
    if (GENERATIONS) {
      generations = await compareGenerations({
        apiUrl: stack.apiUrl,
        sessionUrl: stack.fixture.url,
        sessionWorkflowId: workflowId,
        processes,
        msPerTick,
        latencyRuns: LATENCY_RUNS,
        throughputRuns: THROUGHPUT_RUNS,
        inFlight: IN_FLIGHT,
      });
      console.log(JSON.stringify({ generations }));
    }
    await withSecondWorker(0);
    let historySeconds = 0;
    let settleSeconds = 0;
    if (HISTORY > 0) {
      // The history: finished runs with three node records each, through RunRepository and NodeExecutionRepository.
      const began = performance.now();
      await makeHistory(store, HISTORY, [workflowId]);
      historySeconds = round((performance.now() - began) / 1000, 1);
      const settling = performance.now();
      await settleHistory(store);
      settleSeconds = round((performance.now() - settling) / 1000, 1);
      load.push(loadavg()[0]);
      await floor(HISTORY);
      await measure(HISTORY, 1);
      await withSecondWorker(HISTORY);
    } else load.push(loadavg()[0]); // no history: "after the history" is now
    load.push(loadavg()[0]);
    return {
      stack,
      phases,
      floors,
      generations,
      idleCpuMsPerSecond,
      historySeconds,
      settleSeconds,
      load,
      sessionsLeaked: stack.fixture.sessions(),
    };
  } finally {
    await store.close();
    await stack.close();
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench:scale did not finish within ${TIME_LIMIT_MS / 60_000} min`);
  process.exit(1);
}, TIME_LIMIT_MS);
watchdog.unref();

const { stack, phases, floors, generations, idleCpuMsPerSecond, historySeconds, settleSeconds, load, sessionsLeaked } = await main();
const phase = (stored: number, workers: number) => phases.find((entry) => entry.stored === stored && entry.workers === workers) as Phase;
const floorAt = (stored: number) => floors.find((entry) => entry.stored === stored) as Floor;
const rows = phases.map((entry) => {
  const floor = floorAt(entry.stored);
  return {
    stored: entry.stored,
    workers: entry.workers,
    p50Ms: entry.p50Ms,
    p95Ms: entry.p95Ms,
    runsPerSecond: entry.runsPerSecond,
    floorP50Ms: floor.p50Ms,
    floorJobsPerSecond: floor.jobsPerSecond,
    p50_vs_floor: round(entry.p50Ms / floor.p50Ms),
    p50_vs_empty: round(entry.p50Ms / phase(0, entry.workers).p50Ms),
    throughput_vs_floor: round(entry.runsPerSecond / floor.jobsPerSecond),
  };
});
const result = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadAverage1m: { atStart: round(load[0]), afterHistory: round(load[1]), atEnd: round(load[2]) },
  database: stack.database,
  workflow: 'start → mcpTool(echo) → end on the fixture MCP server (Streamable HTTP), POST …/runs?wait → 200 succeeded',
  latencyRuns: LATENCY_RUNS,
  throughputRuns: THROUGHPUT_RUNS,
  inFlight: IN_FLIGHT,
  history: { runs: HISTORY, nodeRecordsPerRun: 3, madeInSeconds: historySeconds, settledInSeconds: settleSeconds },
  goals: { p50_vs_floor: '≤ 1.3', p50_at_history_vs_empty: '≤ 1.3', throughput_vs_floor: '≥ 0.8', cpuMsPerRunTotal: '≤ 18' },
  cpu: {
    what: 'CPU ms per run from /proc utime+stime of each process of the stack (PostgreSQL: the postmaster, its live backends and the reaped ones), over the sequential runs and over the runs in flight; the client and the MCP server (this process) left out',
    idleMsPerSecond: idleCpuMsPerSecond,
    byPhase: phases.map(({ stored, workers, cpuMsPerRun }) => ({ stored, workers, ...cpuMsPerRun })),
  },
  floor: {
    what: 'a BullMQ job: fresh MCP session (initialize), one echo call, DELETE, then a run insert and its finish on the same runs collection',
    atSizes: floors,
  },
  rows,
  generations: generations && {
    what: 'the same workflow on a 2026-07-28 stateless fixture server beside the session fixture server, empty store, 1 worker, taking turns in blocks; HTTP requests per run counted by a relay on extra runs',
    ...generations,
  },
  sessionsLeaked,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
console.log(
  `${result.database}; ${result.cpus} CPUs; Node ${result.node}; load (1 min) ${load.map((value) => round(value, 1)).join(' → ')}`,
);
console.table(rows);
console.log('CPU ms per run by process (/proc utime+stime; PostgreSQL with its backends; client and MCP server left out):');
console.table(
  phases.flatMap(({ stored, workers, cpuMsPerRun }) => [
    { stored, workers, runs: `${LATENCY_RUNS} one at a time`, ...cpuMsPerRun.sequential },
    { stored, workers, runs: `${THROUGHPUT_RUNS}, ${IN_FLIGHT} in flight`, ...cpuMsPerRun.inFlight },
  ]),
);
console.log(`idle, no runs (ms of CPU per second, part of the figures above): ${JSON.stringify(idleCpuMsPerSecond)}`);
if (generations) {
  console.log('The same run on a session server and on a stateless (2026-07-28) one, in turns (empty store, 1 worker):');
  console.table(
    Object.entries(generations).map(([server, { p50Ms, p95Ms, runsPerSecond, cpuMsPerRun }]) => ({
      server,
      p50Ms,
      p95Ms,
      runsPerSecond,
      cpuMsPerRunSequential: cpuMsPerRun.sequential.total,
      cpuMsPerRunInFlight: cpuMsPerRun.inFlight.total,
    })),
  );
  console.log('HTTP requests the MCP server received per run:');
  console.table(Object.fromEntries(Object.entries(generations).map(([server, figures]) => [server, figures.httpRequestsPerRun])));
}
console.log(
  `goals: p50_vs_floor ≤ 1.3 · p50_vs_empty ≤ 1.3 (at ${HISTORY} stored) · throughput_vs_floor ≥ 0.8 · CPU total ≤ 18 ms per run; written to ${RESULTS_FILE}`,
);
process.exit(0);
