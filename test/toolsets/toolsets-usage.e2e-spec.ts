import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, runToEnd, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface Usage {
  toolsetId: string;
  since: string;
  calls: number;
  failed: number;
  tools: { tool: string; calls: number; errors: Record<string, number>; p50Ms: number; p95Ms: number }[];
}

/** Nearest-rank percentile of known values. */
const nearestRank = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * values.length) - 1)];

describe('GET /toolsets/:id/usage', () => {
  let stack: TestStack;
  let server: FixtureServer;

  beforeAll(async () => {
    [stack, server] = await Promise.all([startRunStack(), startFixtureServer({ tools: basicTools() })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stack?.close(), server?.close()]);
  });

  it('counts a known sequence of ad-hoc and run calls per tool, failures by code, and their p50/p95', async () => {
    const id = await registerToolset(stack.apiUrl, server.url);
    const other = await registerToolset(stack.apiUrl, server.url, 'other');
    const before = new Date().toISOString();
    const durations: number[] = [];
    for (let call = 0; call < 7; call++) {
      const res = await api<{ durationMs: number }>(stack.apiUrl, 'POST', `/toolsets/${id}/tools/add/call`, {
        arguments: { a: call, b: 1 },
      });
      expect(res.status).toBe(200);
      durations.push(res.body.durationMs);
    }
    for (let call = 0; call < 2; call++) {
      expect((await api(stack.apiUrl, 'POST', `/toolsets/${id}/tools/fail/call`, { arguments: {} })).status).toBe(200);
    }
    // Refused before any call (invalid arguments): not a call, not counted.
    expect((await api(stack.apiUrl, 'POST', `/toolsets/${id}/tools/add/call`, { arguments: { a: 'x' } })).status).toBe(400);
    expect((await api(stack.apiUrl, 'POST', `/toolsets/${other}/tools/echo/call`, { arguments: { message: 'elsewhere' } })).status).toBe(
      200,
    );

    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo twice',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'one', type: 'mcpTool', config: { toolsetId: id, tool: 'echo' }, inputs: { message: { value: 'a' } } },
        { id: 'two', type: 'mcpTool', config: { toolsetId: id, tool: 'echo' }, inputs: { message: { value: 'b' } } },
        {
          id: 'slow',
          type: 'mcpTool',
          config: { toolsetId: id, tool: 'slow' },
          inputs: { steps: { value: 1 }, stepMs: { value: 1 } },
          timeoutMs: 60_000,
        },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'one' },
        { source: 'one', target: 'two' },
        { source: 'two', target: 'slow' },
        { source: 'slow', target: 'end' },
      ],
    });
    expect(await runToEnd(stack.apiUrl, workflowId)).toMatchObject({ status: 'succeeded' });

    // A worker writes its runs' usage records in batches (apps/worker/src/runs/usage-records.ts): they show within a bound.
    const read = () => api<Usage>(stack.apiUrl, 'GET', `/toolsets/${id}/usage?since=${encodeURIComponent(before)}`);
    let usage = await read();
    for (let attempt = 0; attempt < 100 && usage.body.calls < 12; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      usage = await read();
    }
    expect(usage.status).toBe(200);
    expect(usage.body).toMatchObject({ toolsetId: id, since: before, calls: 12, failed: 2 });
    const byTool = Object.fromEntries(usage.body.tools.map((tool) => [tool.tool, tool]));
    expect(usage.body.tools.map((tool) => tool.tool)).toEqual(['add', 'echo', 'fail', 'slow']);
    expect(byTool.add).toEqual({
      tool: 'add',
      calls: 7,
      errors: {},
      p50Ms: nearestRank(durations, 0.5),
      p95Ms: nearestRank(durations, 0.95),
    });
    expect(byTool.echo).toMatchObject({ calls: 2, errors: {} });
    expect(byTool.fail).toMatchObject({ calls: 2, errors: { MCP_TOOL_ERROR: 2 } });
    expect(byTool.slow).toMatchObject({ calls: 1, errors: {} });
    expect(byTool.echo.p50Ms).toBeLessThanOrEqual(byTool.echo.p95Ms);

    const later = await api<Usage>(
      stack.apiUrl,
      'GET',
      `/toolsets/${id}/usage?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(later.body).toMatchObject({ calls: 0, failed: 0, tools: [] });
    expect((await api<Usage>(stack.apiUrl, 'GET', `/toolsets/${other}/usage`)).body).toMatchObject({
      calls: 1,
      tools: [{ tool: 'echo', calls: 1 }],
    });
    expect((await api(stack.apiUrl, 'GET', `/toolsets/${id}/usage?since=yesterday`)).status).toBe(400);
    expect((await api(stack.apiUrl, 'GET', '/toolsets/000000000000000000000000/usage')).status).toBe(404);
  });
});
