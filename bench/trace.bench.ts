/**
 * Where a run's wall time and the stack's CPU go (`npm run bench:trace`, issue 28): the bench:scale
 * stack (API and worker as processes of their own, FerretDB on PostgreSQL, Redis, the fixture MCP
 * server here) with traces on in the API and the worker — the standard OTEL_* variables, OTLP/HTTP
 * JSON to a receiver in this process on 127.0.0.1 — and `TRACE_RUNS` runs of
 * `start → mcpTool(echo) → end` one at a time, each under a trace id of its own (the client's
 * `traceparent`). Prints the median time per span name in the order things happen, the gaps no
 * span covers (queue hop, answer), and CPU ms per run of each process over the same runs (with
 * tracing's own cost in it: compare with bench:scale's). Writes bench/results/trace.json.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { cpuPerRun, sampleCpu, tickMs } from './process-cpu.js';
import { createEchoWorkflow, percentile, round, timeRun } from './run-client.js';
import { startBenchStack } from './runs-stack.js';
import { spansOfOtlpJson, whereTimeGoes, type SpanRecord } from './span-summary.js';

const RUNS = Number(process.env.TRACE_RUNS ?? 100);
const WARM_UP = 10;
const RESULTS_FILE = 'bench/results/trace.json';
const TIME_LIMIT_MS = 6 * 60_000;

/** An OTLP/HTTP receiver (JSON protocol) on loopback: every span exported to it, kept in memory. */
async function startSpanReceiver() {
  const spans: SpanRecord[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        spans.push(...spansOfOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const tracingEnv = (endpoint: string) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  // Exported within 200 ms of their end: the bench waits for the last run's spans, not 5 s.
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_BSP_MAX_QUEUE_SIZE: '65536',
});

async function main() {
  const loadAtStart = loadavg()[0];
  const receiver = await startSpanReceiver();
  const env = tracingEnv(receiver.url);
  const stack = await startBenchStack(1, env, env);
  try {
    const workflowId = await createEchoWorkflow(stack.apiUrl, stack.fixture.url);
    for (let warm = 0; warm < WARM_UP; warm++) await timeRun(stack.apiUrl, workflowId, warm);
    const processes = stack.processes(() => [stack.worker.pid]);
    const traceIds: string[] = [];
    const times: number[] = [];
    const before = sampleCpu(processes);
    for (let run = 0; run < RUNS; run++) {
      const traceId = randomBytes(16).toString('hex');
      traceIds.push(traceId);
      const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
      times.push(await timeRun(stack.apiUrl, workflowId, WARM_UP + run, { traceparent }));
    }
    const cpu = cpuPerRun(before, sampleCpu(processes), RUNS, tickMs());
    // The last runs' spans arrive within the exporters' delay: wait until every measured run has its request and run span.
    const deadline = Date.now() + 20_000;
    const complete = () => whereTimeGoes(receiver.spans, traceIds).runs === RUNS;
    while (!complete() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    const summary = whereTimeGoes(receiver.spans, traceIds);
    return { loadAtStart, database: stack.database, p50Ms: percentile(times, 0.5), cpu, summary };
  } finally {
    await stack.close();
    await receiver.close();
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench:trace did not finish within ${TIME_LIMIT_MS / 60_000} min`);
  process.exit(1);
}, TIME_LIMIT_MS);
watchdog.unref();

const { loadAtStart, database, p50Ms, cpu, summary } = await main();
const result = {
  measuredAt: new Date().toISOString(),
  node: process.version,
  cpus: cpus().length,
  loadAverage1m: { atStart: round(loadAtStart), atEnd: round(loadavg()[0]) },
  database,
  workflow: 'start → mcpTool(echo) → end on the fixture MCP server (Streamable HTTP), POST …/runs?wait, one at a time, traced',
  runs: RUNS,
  tracedRuns: summary.runs,
  p50Ms,
  cpuMsPerRun: cpu,
  whereTimeGoes: summary.rows,
  storeCommandsPerRun: summary.storeCommands,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
console.log(`${database}; ${result.cpus} CPUs; load (1 min) ${round(loadAtStart, 1)} → ${round(loadavg()[0], 1)}`);
console.log(
  `${summary.runs} of ${RUNS} runs traced whole; p50 ${p50Ms} ms (with tracing on). Where a run's wall time goes (median per run):`,
);
console.table(summary.rows);
console.log('Store commands per run, by process, command and collection:');
console.table(summary.storeCommands);
console.log('CPU ms per run by process over the same runs (tracing on; /proc utime+stime, PostgreSQL with its backends):');
console.table([cpu]);
console.log(`written to ${RESULTS_FILE}`);
process.exit(summary.runs === RUNS ? 0 : 1);
