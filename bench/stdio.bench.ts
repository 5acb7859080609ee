/**
 * How a worker should run stdio toolsets, measured in one run on this machine: a "run" makes
 * CALLS_PER_RUN calls to one local server, as the worker's pool does.
 *   - per-run: a pool per run (spawn, handshake, calls, close), as `process: "per-run"` (default) toolsets;
 *   - per-worker: one process for every run (the calls only), as `process: "per-worker"` toolsets.
 * Modes take turns run by run. Servers: server-everything (`get-sum`) and server-filesystem
 * (`list_allowed_directories`), both `node <entry>` over stdio.
 * Prints a table and writes bench/results/stdio.json. Run: `npm run bench:stdio`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mcpClientMemory, type McpStdioTarget } from '#mcp';
import { serverEverythingStdioTarget } from '#mcp/testing';

const RUNS = 20;
const WARM_UP_RUNS = 2;
const CALLS_PER_RUN = 3;
const RESULTS_FILE = 'bench/results/stdio.json';

interface Figures {
  runs: number;
  p50Ms: number;
  p95Ms: number;
}

function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  const round = (value: number) => Number(value.toFixed(2));
  return {
    runs: times.length,
    p50Ms: round(sorted[Math.floor(times.length / 2)]),
    p95Ms: round(sorted[Math.min(times.length - 1, Math.floor(times.length * 0.95))]),
  };
}

async function measure(target: McpStdioTarget, tool: string, args: Record<string, unknown>) {
  const shared = mcpClientMemory();
  const calls = async (pool: ReturnType<typeof mcpClientMemory>) => {
    for (let call = 0; call < CALLS_PER_RUN; call++) {
      const { connection } = await pool.acquire(target);
      await connection.callTool(tool, args);
    }
  };
  const perRun = async () => {
    const pool = mcpClientMemory();
    try {
      await calls(pool);
    } finally {
      await pool.closeAll();
    }
  };
  const times = { perRun: [] as number[], perWorker: [] as number[] };
  try {
    for (let run = 0; run < WARM_UP_RUNS + RUNS; run++) {
      for (const [mode, body] of [
        ['perRun', perRun],
        ['perWorker', () => calls(shared)],
      ] as const) {
        const began = performance.now();
        await body();
        if (run >= WARM_UP_RUNS) times[mode].push(performance.now() - began);
      }
    }
  } finally {
    await shared.closeAll();
  }
  const perRunFigures = figures(times.perRun);
  const perWorkerFigures = figures(times.perWorker);
  return {
    perRun: perRunFigures,
    perWorker: perWorkerFigures,
    ratio_perRun_vs_perWorker: Number((perRunFigures.p50Ms / perWorkerFigures.p50Ms).toFixed(1)),
  };
}

const folder = mkdtempSync(join(tmpdir(), 'mcpflow-bench-fs-'));
try {
  const filesystem: McpStdioTarget = {
    kind: 'stdio',
    command: process.execPath,
    args: [createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), folder],
  };
  const result = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    callsPerRun: CALLS_PER_RUN,
    everything: await measure(serverEverythingStdioTarget(), 'get-sum', { a: 1, b: 2 }),
    filesystem: await measure(filesystem, 'list_allowed_directories', {}),
  };
  console.table(
    (['everything', 'filesystem'] as const).flatMap((server) =>
      (['perRun', 'perWorker'] as const).map((mode) => ({ server, mode, ...result[server][mode] })),
    ),
  );
  for (const server of ['everything', 'filesystem'] as const)
    console.log(`${server}: per-run / per-worker p50 = ${result[server].ratio_perRun_vs_perWorker}`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`wrote ${RESULTS_FILE}`);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
