import type { INestApplicationContext } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { WorkerMetrics } from '../../apps/worker/src/metrics/worker-metrics.js';
import { anonymousFetch, bearer, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { has, parseExposition, total, type Sample } from '../support/prometheus.js';
import { createWorkflow, FAST_RECOVERY, runToEnd } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

const SECRET_HEADER = 'Bearer metrics-e2e-toolset-secret';

function toolWorkflow(toolsetId: string, tool: string, args: Record<string, unknown>) {
  return {
    name: `call ${tool}`,
    nodes: [
      { id: 'start', type: 'start' },
      {
        id: 'call',
        type: 'mcpTool',
        config: { toolsetId, tool },
        inputs: Object.fromEntries(Object.entries(args).map(([key, value]) => [key, { value }])),
      },
      { id: 'end', type: 'end', inputs: {} },
    ],
    edges: [
      { source: 'start', target: 'call' },
      { source: 'call', target: 'end' },
    ],
  };
}

describe('GET /metrics on the API and on the worker', () => {
  let config: AppConfig;
  let apiApp: NestExpressApplication;
  let apiUrl: string;
  let worker: INestApplicationContext;
  let workerUrl: string;
  let server: FixtureServer;

  const scrapeApi = async (): Promise<{ text: string; samples: Sample[] }> => {
    const res = await fetch(`${apiUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    return { text, samples: parseExposition(text) };
  };
  const scrapeWorker = async (): Promise<{ text: string; samples: Sample[] }> => {
    const res = await anonymousFetch(workerUrl);
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, samples: parseExposition(text) };
  };

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
    server = await startFixtureServer({ tools: basicTools(), auth: { header: 'authorization', value: SECRET_HEADER } });
    ({ app: apiApp, url: apiUrl } = await startApi(config));
    worker = await startWorker(config);
    const address = worker.get(WorkerMetrics).address;
    if (!address) throw new Error('the worker metrics listener is not bound');
    workerUrl = `http://127.0.0.1:${address.port}/metrics`;
  });
  afterAll(async () => {
    await worker?.close();
    await apiApp?.close();
    await server?.close();
    await dropTestData(config);
  });

  it('asks for a key with the metrics scope (admin too); the worker listener is on loopback and serves only /metrics', async () => {
    expect((await anonymousFetch(`${apiUrl}/metrics`)).status).toBe(401);
    const created = async (scopes: string[]) =>
      (await api<{ key: string }>(apiUrl, 'POST', '/api-keys', { name: `scrape ${scopes.join(' ')}`, scopes })).body.key;
    const reader = await created(['read']);
    const scraper = await created(['metrics']);
    expect((await fetch(`${apiUrl}/metrics`, { headers: bearer(reader) })).status).toBe(403);
    expect((await fetch(`${apiUrl}/metrics`, { headers: bearer(scraper) })).status).toBe(200);
    // A metrics key reads nothing else.
    expect((await fetch(`${apiUrl}/workflows`, { headers: bearer(scraper) })).status).toBe(403);
    expect(worker.get(WorkerMetrics).address?.address).toBe('127.0.0.1');
    expect((await anonymousFetch(workerUrl.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('moves the run, node and MCP series on the worker and on the API after runs; no run id, path id or secret in them', async () => {
    const toolset = await api<{ id: string }>(apiUrl, 'POST', '/toolsets', {
      name: 'metered',
      url: server.url,
      headers: { authorization: SECRET_HEADER },
    });
    expect(toolset.status).toBe(201);
    const toolsetId = toolset.body.id;
    const echo = await createWorkflow(apiUrl, toolWorkflow(toolsetId, 'echo', { message: 'hello' }));
    const failing = await createWorkflow(apiUrl, toolWorkflow(toolsetId, 'fail', {}));
    const beforeWorker = (await scrapeWorker()).samples;
    const beforeApi = (await scrapeApi()).samples;

    const succeeded = await runToEnd(apiUrl, echo);
    const failed = await runToEnd(apiUrl, failing);
    expect(succeeded.status).toBe('succeeded');
    expect(failed.status).toBe('failed');
    const failedCode = failed.error?.code ?? '';
    expect(failedCode).not.toBe('');
    const adhoc = await api(apiUrl, 'POST', `/toolsets/${toolsetId}/tools/echo/call`, { arguments: { message: 'adhoc' } });
    expect(adhoc.status).toBe(200);

    const call = (tool: string, source: string) => ({ toolset: toolsetId, tool, source });
    const moved = (before: Sample[], after: Sample[]) => ({
      started: total(after, 'mcpflow_runs_started_total') - total(before, 'mcpflow_runs_started_total'),
      succeeded:
        total(after, 'mcpflow_runs_finished_total', { status: 'succeeded', error_code: 'none' }) -
        total(before, 'mcpflow_runs_finished_total', { status: 'succeeded', error_code: 'none' }),
      failed:
        total(after, 'mcpflow_runs_finished_total', { status: 'failed', error_code: failedCode }) -
        total(before, 'mcpflow_runs_finished_total', { status: 'failed', error_code: failedCode }),
      runDurations: total(after, 'mcpflow_run_duration_seconds_count') - total(before, 'mcpflow_run_duration_seconds_count'),
      toolNodes:
        total(after, 'mcpflow_node_duration_seconds_count', { node_type: 'mcpTool' }) -
        total(before, 'mcpflow_node_duration_seconds_count', { node_type: 'mcpTool' }),
      echoCalls:
        total(after, 'mcpflow_mcp_call_duration_seconds_count', call('echo', 'run')) -
        total(before, 'mcpflow_mcp_call_duration_seconds_count', call('echo', 'run')),
      toolErrors:
        total(after, 'mcpflow_mcp_call_errors_total', { ...call('fail', 'run'), code: 'MCP_TOOL_ERROR' }) -
        total(before, 'mcpflow_mcp_call_errors_total', { ...call('fail', 'run'), code: 'MCP_TOOL_ERROR' }),
    });
    const expected = { started: 2, succeeded: 1, failed: 1, runDurations: 2, toolNodes: 2, echoCalls: 1, toolErrors: 1 };

    const workerAfter = await scrapeWorker();
    expect(moved(beforeWorker, workerAfter.samples)).toEqual(expected);
    for (const name of [
      'mcpflow_mcp_sessions_open',
      'mcpflow_queue_jobs',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ])
      expect([name, has(workerAfter.samples, name)]).toEqual([name, true]);

    // The API sums the workers' pushes (one soon after each run ends, so a push may fall between the
    // two runs): poll until both runs show, within a bound.
    let apiAfter = await scrapeApi();
    const seen = () => JSON.stringify(moved(beforeApi, apiAfter.samples)) === JSON.stringify(expected);
    for (let attempt = 0; attempt < 100 && !seen(); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      apiAfter = await scrapeApi();
    }
    expect(moved(beforeApi, apiAfter.samples)).toEqual(expected);
    expect(total(apiAfter.samples, 'mcpflow_mcp_call_duration_seconds_count', call('echo', 'adhoc'))).toBe(1);
    expect(total(apiAfter.samples, 'mcpflow_queue_jobs', { state: 'waiting' })).toBe(0);
    expect(has(apiAfter.samples, 'process_resident_memory_bytes')).toBe(true);
    const starts = apiAfter.samples.filter(
      (sample) => sample.name === 'mcpflow_http_request_duration_seconds_count' && sample.labels.route === '/workflows/:id/runs',
    );
    expect(starts.map((sample) => sample.labels.method)).toEqual(starts.map(() => 'POST'));
    expect(starts.reduce((sum, sample) => sum + sample.value, 0)).toBe(2);
    const adhocRoute = { route: '/toolsets/:id/tools/:tool/call', method: 'POST', status: '200' };
    expect(total(apiAfter.samples, 'mcpflow_http_request_duration_seconds_count', adhocRoute)).toBe(1);
    expect(total(apiAfter.samples, 'mcpflow_http_request_duration_seconds_count', { route: '/metrics', status: '401' })).toBe(1);

    for (const text of [apiAfter.text, workerAfter.text]) {
      for (const id of [succeeded.id, failed.id, echo, failing]) expect(text).not.toContain(id);
      for (const secret of [SECRET_HEADER, 'metrics-e2e-toolset-secret', keyOf(apiUrl), config.secrets.key ?? ''])
        expect(text).not.toContain(secret);
    }
  });
});
