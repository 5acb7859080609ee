import { startStatelessFixtureServer } from '#mcp/testing';
import { createEchoWorkflow, percentile, round, timeRun } from './run-client.js';
import { sampleCpu, cpuPerRun, type CpuSample, type MeteredProcess } from './process-cpu.js';
import { startRequestCensus } from './request-census.js';
import { throughput } from './runs-floor.js';

/**
 * A run on a 2026-07-28 (stateless) MCP server beside the same run on a session server (issue 28):
 * the same `start → mcpTool(echo) → end` workflow through the same API and worker, the two taking
 * turns block by block so both see the same load. Per generation: p50/p95 one at a time, runs/s
 * with `inFlight`, CPU ms per run of the stack's processes, and the HTTP requests the MCP server
 * received per run — counted by a relay in front of it on extra runs (the timed runs go direct).
 */
export interface GenerationFigures {
  p50Ms: number;
  p95Ms: number;
  runsPerSecond: number;
  cpuMsPerRun: { sequential: Record<string, number>; inFlight: Record<string, number> };
  httpRequestsPerRun: Record<string, number>;
}

export interface GenerationsOptions {
  apiUrl: string;
  /** The session server (the stack's fixture) and the workflow already made on it. */
  sessionUrl: string;
  sessionWorkflowId: string;
  processes: MeteredProcess[];
  msPerTick: number;
  latencyRuns: number;
  throughputRuns: number;
  inFlight: number;
}

const BLOCKS = 5;
const CENSUS_RUNS = 20;
const WARM_UP = 10;

/** Ticks spent by each part between `before` and now, added to `into`. */
function accumulate(into: CpuSample, before: CpuSample, after: CpuSample): void {
  for (const [name, ticks] of after) into.set(name, (into.get(name) ?? 0) + ticks - (before.get(name) ?? 0));
}

export async function compareGenerations(
  options: GenerationsOptions,
): Promise<{ session: GenerationFigures; stateless: GenerationFigures }> {
  const { apiUrl, processes, msPerTick, inFlight } = options;
  const stateless = await startStatelessFixtureServer();
  const censuses = [await startRequestCensus(options.sessionUrl), await startRequestCensus(stateless.url)];
  let index = 0;
  try {
    const workflows = [options.sessionWorkflowId, await createEchoWorkflow(apiUrl, stateless.url, 'stateless fixture')];
    const counted = [
      await createEchoWorkflow(apiUrl, censuses[0].url, 'session fixture, counted'),
      await createEchoWorkflow(apiUrl, censuses[1].url, 'stateless fixture, counted'),
    ];
    for (const workflowId of [...workflows, ...counted])
      for (let warm = 0; warm < WARM_UP; warm++) await timeRun(apiUrl, workflowId, index++);
    const httpRequestsPerRun = counted.map(() => ({}) as Record<string, number>);
    for (const [mode, workflowId] of counted.entries()) {
      censuses[mode].reset();
      for (let run = 0; run < CENSUS_RUNS; run++) await timeRun(apiUrl, workflowId, index++);
      let total = 0;
      for (const [key, count] of Object.entries(censuses[mode].counts())) {
        httpRequestsPerRun[mode][key] = round(count / CENSUS_RUNS);
        total += count;
      }
      httpRequestsPerRun[mode].total = round(total / CENSUS_RUNS);
    }

    const times = workflows.map(() => [] as number[]);
    const sequentialTicks = workflows.map(() => new Map() as CpuSample);
    const perBlock = Math.max(1, Math.round(options.latencyRuns / BLOCKS));
    for (let block = 0; block < BLOCKS; block++)
      for (const [mode, workflowId] of workflows.entries()) {
        const before = sampleCpu(processes);
        for (let run = 0; run < perBlock; run++) times[mode].push(await timeRun(apiUrl, workflowId, index++));
        accumulate(sequentialTicks[mode], before, sampleCpu(processes));
      }

    const inFlightTicks = workflows.map(() => new Map() as CpuSample);
    const seconds = workflows.map(() => 0);
    const jobsPerBlock = Math.max(inFlight, Math.round(options.throughputRuns / BLOCKS));
    for (let block = 0; block < BLOCKS; block++)
      for (const [mode, workflowId] of workflows.entries()) {
        const before = sampleCpu(processes);
        const perSecond = await throughput(jobsPerBlock, inFlight, async () => void (await timeRun(apiUrl, workflowId, index++)));
        seconds[mode] += jobsPerBlock / perSecond;
        accumulate(inFlightTicks[mode], before, sampleCpu(processes));
      }

    const figures = (mode: number): GenerationFigures => ({
      p50Ms: percentile(times[mode], 0.5),
      p95Ms: percentile(times[mode], 0.95),
      runsPerSecond: round((jobsPerBlock * BLOCKS) / seconds[mode], 1),
      cpuMsPerRun: {
        sequential: cpuPerRun(new Map(), sequentialTicks[mode], perBlock * BLOCKS, msPerTick),
        inFlight: cpuPerRun(new Map(), inFlightTicks[mode], jobsPerBlock * BLOCKS, msPerTick),
      },
      httpRequestsPerRun: httpRequestsPerRun[mode],
    });
    return { session: figures(0), stateless: figures(1) };
  } finally {
    for (const census of censuses) await census.close();
    await stateless.close();
  }
}
