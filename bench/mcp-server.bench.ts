/**
 * Published MCP server benchmark (`npm run bench:mcp-server`), everything on loopback in one run:
 * the same `start → mcpTool(echo) → end` workflow, run to its end
 *   (a) over REST: `POST /workflows/:id/runs?wait` (the floor),
 *   (b) as a tool of a published MCP server, `tools/call` from an SDK v2 client (2026-07-28),
 *   (c) the same from an SDK v1 client over Streamable HTTP (2025-11-25, served statelessly),
 * interleaved call by call so that drift (the store growing, the machine's load) hits all three
 * alike. Each path is client → API → queue → worker → workflow → result. Goal: (b) and (c) cost at
 * most 1.2× (a). Prints a table and writes bench/results/mcp-server.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBenchStack, type BenchStack } from './runs-stack.js';

const WARM_UP = 20;
const SAMPLES = 150;
const GOAL = 1.2;
const RESULTS_FILE = 'bench/results/mcp-server.json';

const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const percentile = (times: number[], p: number) =>
  round([...times].sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * p))]);

async function post(stack: BenchStack, path: string, body: unknown): Promise<{ id: string; url?: string }> {
  const res = await fetch(stack.apiUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { id: string; url?: string };
  if (res.status !== 201) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function publishEcho(stack: BenchStack): Promise<{ workflowId: string; url: string }> {
  const toolset = await post(stack, '/toolsets', { name: 'fixture', url: stack.fixture.url });
  const workflow = await post(stack, '/workflows', {
    name: 'echo',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'echo', type: 'mcpTool', config: { toolsetId: toolset.id, tool: 'echo' }, inputs: { message: { ref: 'start.message' } } },
      { id: 'end', type: 'end', inputs: { echoed: { ref: 'echo.text' } } },
    ],
    edges: [
      { source: 'start', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  });
  const server = await post(stack, '/mcp-servers', { name: 'bench', tools: [{ workflowId: workflow.id, name: 'echo' }] });
  return { workflowId: workflow.id, url: String(server.url) };
}

type Call = (message: string) => Promise<unknown>;

async function timed(call: Call, message: string): Promise<number> {
  const began = performance.now();
  const echoed = await call(message);
  const elapsed = performance.now() - began;
  if (echoed !== message) throw new Error(`expected ${message}, got ${JSON.stringify(echoed)}`);
  return elapsed;
}

async function main() {
  const stack = await startBenchStack(10);
  try {
    const { workflowId, url } = await publishEcho(stack);
    const modern = new ClientV2({ name: 'bench', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new TransportV2(new URL(url)));
    const legacy = new ClientV1({ name: 'bench', version: '1' });
    await legacy.connect(new TransportV1(new URL(url)));
    const paths: Record<string, Call> = {
      rest: async (message) => {
        const res = await fetch(`${stack.apiUrl}/workflows/${workflowId}/runs?wait=60000`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ inputs: { message } }),
        });
        const run = (await res.json()) as { status: string; outputs?: { echoed?: string } };
        return res.status === 200 && run.status === 'succeeded' ? run.outputs?.echoed : run;
      },
      mcpModern: async (message) =>
        ((await modern.callTool({ name: 'echo', arguments: { message } })).structuredContent as { echoed?: string })?.echoed,
      mcp2025: async (message) =>
        ((await legacy.callTool({ name: 'echo', arguments: { message } })).structuredContent as { echoed?: string })?.echoed,
    };
    const names = Object.keys(paths);
    for (let i = 0; i < WARM_UP; i++) for (const name of names) await timed(paths[name], `warm ${i}`);
    await stack.clearRuns();
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    for (let i = 0; i < SAMPLES; i++) {
      // Rotating the order keeps any position effect (caches, the worker's idle poll) off one path.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        times[name].push(await timed(paths[name], `${name} ${i}`));
      }
    }
    await modern.close();
    await legacy.close();

    const summary = Object.fromEntries(
      names.map((name) => [name, { p50Ms: percentile(times[name], 0.5), p95Ms: percentile(times[name], 0.95) }]),
    );
    const ratio = (name: string) => round(summary[name].p50Ms / summary.rest.p50Ms, 3);
    const results = {
      measuredAt: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      database: stack.database,
      samplesPerPath: SAMPLES,
      workflow: 'start → mcpTool(echo, fixture server) → end, one worker process (concurrency 10)',
      paths: summary,
      ratioToRest: { mcpModern: ratio('mcpModern'), mcp2025: ratio('mcp2025') },
      goal: `≤ ${GOAL}× the REST ?wait path (p50)`,
      withinGoal: ratio('mcpModern') <= GOAL && ratio('mcp2025') <= GOAL,
    };
    console.table(Object.fromEntries(names.map((name) => [name, { ...summary[name], ratio: name === 'rest' ? 1 : ratio(name) }])));
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + '\n');
    console.log(`written ${RESULTS_FILE}; within goal: ${results.withinGoal}`);
  } finally {
    await stack.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
