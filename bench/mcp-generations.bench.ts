/**
 * What each MCP generation costs a run, and what SDK v2 costs against SDK v1 — on loopback, against
 * in-process fixture servers (SDK v1 session server, SDK v2 stateless server), in one process so
 * every figure has its floor beside it:
 *   - runs: a run's pool (acquire, 3 calls, closeAll) against a session server and against a
 *     stateless one; requests the server received per run (handshake, DELETE) and p50 per run;
 *   - sdk:  raw calls on one connection, SDK v1 Client vs SDK v2 Client, on the same session server;
 *           and connect + close, SDK v1 vs SDK v2 with `versionNegotiation: auto` (probe first).
 * Modes take turns run by run / call by call, so they see the same load on a shared machine.
 * Writes bench/results/mcp-generations.json. Run: `npm run bench:generations`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listToolset, mcpClientMemory, type FetchFunction, type McpHttpTarget } from '#mcp';
import { startFixtureServer, startStatelessFixtureServer } from '#mcp/testing';
import { timeInTurns as inTurns } from './turns.js';

const RUNS = 100;
const CALLS_PER_RUN = 3;
const RAW_CALLS = 300;
const CONNECTS = 60;
const WARM_UP = 20;
const RESULTS_FILE = 'bench/results/mcp-generations.json';

type Step = (index: number) => Promise<void>;

function p50(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Number(sorted[Math.floor(sorted.length / 2)].toFixed(3));
}

/** Counts the HTTP requests (by method) our client sends, to show what each run pays. */
function countingFetch(): { fetch: FetchFunction; counts: Record<string, number>; reset(): void } {
  const counts: Record<string, number> = {};
  const fetch: FetchFunction = (input, init) => {
    const method = init?.method ?? 'GET';
    const rpc = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }).method : undefined;
    const key = rpc ? `${method} ${rpc}` : method;
    counts[key] = (counts[key] ?? 0) + 1;
    return globalThis.fetch(input, init);
  };
  return { fetch, counts, reset: () => Object.keys(counts).forEach((key) => delete counts[key]) };
}

async function runsBySessionKind() {
  const session = await startFixtureServer();
  const stateless = await startStatelessFixtureServer();
  const sessionFetch = countingFetch();
  const statelessFetch = countingFetch();
  const sessionTarget: McpHttpTarget = { url: session.url, protocolVersion: '2025-11-25', fetch: sessionFetch.fetch };
  const statelessTarget: McpHttpTarget = { url: stateless.url, protocolVersion: '2026-07-28', fetch: statelessFetch.fetch };
  // As when the toolset was created: the listing remembers the revision (and the discover answer).
  await listToolset(sessionTarget);
  await listToolset(statelessTarget);
  const run = (target: McpHttpTarget) => async (index: number) => {
    const pool = mcpClientMemory();
    try {
      for (let call = 0; call < CALLS_PER_RUN; call++) {
        const { connection } = await pool.acquire(target);
        await connection.callTool('echo', { message: `run ${index} call ${call}` });
      }
    } finally {
      await pool.closeAll();
    }
  };
  try {
    await inTurns(WARM_UP, [run(sessionTarget), run(statelessTarget)]);
    sessionFetch.reset();
    statelessFetch.reset();
    const [sessionTimes, statelessTimes] = await inTurns(RUNS, [run(sessionTarget), run(statelessTarget)]);
    const perRun = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, n / RUNS]));
    return {
      runs: RUNS,
      callsPerRun: CALLS_PER_RUN,
      session: { p50Ms: p50(sessionTimes), requestsPerRun: perRun(sessionFetch.counts), sessionsLeaked: session.sessions() },
      stateless: { p50Ms: p50(statelessTimes), requestsPerRun: perRun(statelessFetch.counts), sessionTraffic: stateless.sessionTraffic() },
      ratio_stateless_vs_session: Number((p50(statelessTimes) / p50(sessionTimes)).toFixed(3)),
    };
  } finally {
    await Promise.all([session.close(), stateless.close()]);
  }
}

async function sdkGenerations() {
  const server = await startFixtureServer();
  const url = new URL(server.url);
  try {
    const v1 = new ClientV1({ name: 'bench-v1', version: '1.0.0' });
    const v1Transport = new TransportV1(url);
    await v1.connect(v1Transport);
    const v2 = new ClientV2({ name: 'bench-v2', version: '1.0.0' });
    const v2Transport = new TransportV2(url);
    await v2.connect(v2Transport);
    const callV1: Step = async (i) => void (await v1.callTool({ name: 'echo', arguments: { message: `v1 ${i}` } }));
    const callV2: Step = async (i) => void (await v2.callTool({ name: 'echo', arguments: { message: `v2 ${i}` } }));
    await inTurns(WARM_UP, [callV1, callV2]);
    const [v1Calls, v2Calls] = await inTurns(RAW_CALLS, [callV1, callV2]);
    await v1Transport.terminateSession();
    await v1.close();
    await v2Transport.terminateSession();
    await v2.close();

    const connectV1: Step = async () => {
      const transport = new TransportV1(url);
      const client = new ClientV1({ name: 'bench-v1', version: '1.0.0' });
      await client.connect(transport);
      await transport.terminateSession();
      await client.close();
    };
    const connectV2Auto: Step = async () => {
      const transport = new TransportV2(url);
      const client = new ClientV2({ name: 'bench-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(transport);
      await transport.terminateSession();
      await client.close();
    };
    const [v1Connects, v2Connects] = await inTurns(CONNECTS, [connectV1, connectV2Auto]);
    return {
      server: 'SDK v1 session server (Streamable HTTP, 2025-11-25)',
      call_p50Ms: { sdkV1: p50(v1Calls), sdkV2: p50(v2Calls) },
      ratio_call_v2_vs_v1: Number((p50(v2Calls) / p50(v1Calls)).toFixed(3)),
      connectAndClose_p50Ms: { sdkV1: p50(v1Connects), sdkV2Auto: p50(v2Connects) },
      ratio_connect_v2auto_vs_v1: Number((p50(v2Connects) / p50(v1Connects)).toFixed(3)),
      sessionsLeaked: server.sessions(),
    };
  } finally {
    await server.close();
  }
}

const result = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  runs: await runsBySessionKind(),
  sdk: await sdkGenerations(),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${RESULTS_FILE}`);
if (result.runs.session.sessionsLeaked !== 0 || result.sdk.sessionsLeaked !== 0) process.exitCode = 1;
