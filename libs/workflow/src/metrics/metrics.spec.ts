import { describe, expect, it } from '@jest/globals';
import { Metrics } from './metrics.js';

const line = (text: string, prefix: string) => text.split('\n').find((candidate) => candidate.startsWith(prefix));

describe('Metrics', () => {
  it("sums other processes' work series into the exposition, keeping its own process series once", async () => {
    const api = new Metrics();
    const worker = new Metrics();
    const other = new Metrics();
    worker.runFinished({ status: 'succeeded', durationMs: 20 });
    other.runFinished({ status: 'succeeded', durationMs: 40 });
    other.runFinished({ status: 'failed', durationMs: 5, error: { code: 'MCP_TIMEOUT' } });
    const text = await api.exposition([await worker.workSnapshot(), await other.workSnapshot()]);
    expect(line(text, 'mcpflow_runs_finished_total{status="succeeded",error_code="none"}')).toMatch(/ 2$/);
    expect(line(text, 'mcpflow_runs_finished_total{status="failed",error_code="MCP_TIMEOUT"}')).toMatch(/ 1$/);
    expect(line(text, 'mcpflow_run_duration_seconds_count{status="succeeded"}')).toMatch(/ 2$/);
    expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
  });

  it('keeps tool names per toolset to a bound: a workflow naming endless tools cannot grow the series', async () => {
    const metrics = new Metrics();
    for (let tool = 0; tool < 250; tool++) metrics.mcpCall({ toolsetId: 'ts', tool: `tool-${tool}`, durationMs: 1 }, 'run');
    const counts = (await metrics.exposition())
      .split('\n')
      .filter((sample) => sample.startsWith('mcpflow_mcp_call_duration_seconds_count'));
    expect(counts).toHaveLength(201);
    expect(line(counts.join('\n'), 'mcpflow_mcp_call_duration_seconds_count{toolset="ts",tool="_other",source="run"}')).toMatch(/ 50$/);
  });

  it('counts the open connections of live run pools, and a pool that closed as none', async () => {
    const metrics = new Metrics();
    const pools = [{ size: 2 }, { size: 1 }];
    pools.forEach((pool) => metrics.holdSessions(pool));
    expect(line(await metrics.exposition(), 'mcpflow_mcp_sessions_open ')).toBe('mcpflow_mcp_sessions_open 3');
    pools[0].size = 0;
    expect(line(await metrics.exposition(), 'mcpflow_mcp_sessions_open ')).toBe('mcpflow_mcp_sessions_open 1');
  });
});
