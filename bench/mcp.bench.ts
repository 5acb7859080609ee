/**
 * MCP call overhead, measured against its floor in one run, on loopback, against a bare SDK
 * fixture server (Streamable HTTP):
 *   - raw:   sequential calls on one raw SDK Client (the floor: no pool, no validation);
 *   - pool:  sequential calls through a run's pool (acquire + callTool each time, as the worker does);
 *   - fresh: a new connection per call (connect, call, close) — what reuse saves.
 * Raw and pool calls alternate, so both see the same load on a shared machine.
 * Prints a table and writes bench/results/mcp.json. Run: `npm run bench:mcp`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectMcp, mcpClientMemory, type McpHttpTarget } from '#mcp';
import { startFixtureServer } from '#mcp/testing';
import { timeInTurns } from './turns.js';

const CALLS = 200; // each of raw and pool
const FRESH_CALLS = 50;
const WARM_UP_CALLS = 30;
const RESULTS_FILE = 'bench/results/mcp.json';

interface Figures {
  calls: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  callsPerSecond: number;
}

type Call = (index: number) => Promise<void>;

function figures(times: number[]): Figures {
  const sorted = [...times].sort((a, b) => a - b);
  const total = times.reduce((sum, t) => sum + t, 0);
  const round = (value: number) => Number(value.toFixed(3));
  return {
    calls: times.length,
    p50Ms: round(sorted[Math.floor(times.length / 2)]),
    p95Ms: round(sorted[Math.min(times.length - 1, Math.floor(times.length * 0.95))]),
    meanMs: round(total / times.length),
    callsPerSecond: Number(((times.length * 1000) / total).toFixed(1)),
  };
}

async function rawClient(url: string): Promise<{ call: (message: string) => Promise<void>; close: () => Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'bench-raw', version: '1.0.0' });
  await client.connect(transport);
  return {
    call: async (message) => {
      await client.callTool({ name: 'echo', arguments: { message } });
    },
    close: async () => {
      await transport.terminateSession();
      await client.close();
    },
  };
}

export async function measureMcpOverhead() {
  const server = await startFixtureServer();
  const target: McpHttpTarget = { url: server.url };
  try {
    const raw = await rawClient(server.url);
    const pool = mcpClientMemory();
    const rawCall: Call = (i) => raw.call(`raw ${i}`);
    const poolCall: Call = async (i) => {
      const { connection } = await pool.acquire(target);
      await connection.callTool('echo', { message: `pool ${i}` });
    };
    await timeInTurns(WARM_UP_CALLS, [rawCall, poolCall]);
    const [rawTimes, poolTimes] = await timeInTurns(CALLS, [rawCall, poolCall]);
    await raw.close();
    await pool.closeAll();

    const [freshTimes] = await timeInTurns(FRESH_CALLS, [
      async (i) => {
        const connection = await connectMcp(target);
        try {
          await connection.callTool('echo', { message: `fresh ${i}` });
        } finally {
          await connection.close();
        }
      },
    ]);
    const [rawFigures, poolFigures, freshFigures] = [rawTimes, poolTimes, freshTimes].map(figures);

    return {
      measuredAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      server: 'bare SDK fixture server, Streamable HTTP, 127.0.0.1, tool "echo"',
      ratio_pool_vs_raw: Number((poolFigures.p50Ms / rawFigures.p50Ms).toFixed(3)),
      ratio_fresh_vs_pool: Number((freshFigures.p50Ms / poolFigures.p50Ms).toFixed(3)),
      sessions_leaked: server.sessions(),
      raw: rawFigures,
      pool: poolFigures,
      fresh: freshFigures,
    };
  } finally {
    await server.close();
  }
}

const result = await measureMcpOverhead();
const rows = (['raw', 'pool', 'fresh'] as const).map((name) => ({ mode: name, ...result[name] }));
console.table(rows);
console.log(`ratio_pool_vs_raw   ${result.ratio_pool_vs_raw} (goal ≤ 1.3, p50 over p50)`);
console.log(`ratio_fresh_vs_pool ${result.ratio_fresh_vs_pool} (expected ≥ 2)`);
console.log(`sessions_leaked     ${result.sessions_leaked} (must be 0)`);
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${RESULTS_FILE}`);
if (result.sessions_leaked !== 0) process.exitCode = 1;
