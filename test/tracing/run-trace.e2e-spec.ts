import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { startTracing } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

/**
 * One run, traced end to end with an in-memory exporter: the client's trace continues through the
 * API's request, the queue and the worker down to each node, its store commands and its MCP
 * requests, and the MCP server receives the trace in `traceparent`.
 */
describe('traces: one run from the request to the MCP server', () => {
  const exporter = new InMemorySpanExporter();
  const secret = `Bearer s3cret-${randomBytes(6).toString('hex')}`;
  let stopTracing: () => Promise<void>;
  let stack: TestStack;
  let fixture: FixtureServer;

  beforeAll(async () => {
    stopTracing = await startTracing({ serviceName: 'mcpflow-test', spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: basicTools(), auth: { header: 'authorization', value: secret } });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await fixture?.close();
    await stopTracing?.();
  }, 60_000);

  const idOf = (span: ReadableSpan) => span.spanContext().spanId;
  const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

  it('gives a run one trace: request → run → nodes → store commands and MCP requests, with traceparent sent', async () => {
    const toolset = await api<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', {
      name: 'traced',
      url: fixture.url,
      headers: { Authorization: secret },
    });
    expect(toolset.status).toBe(201);
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'traced',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'call',
          type: 'mcpTool',
          config: { toolsetId: toolset.body.id, tool: 'echo' },
          inputs: { message: { ref: 'start.message' } },
        },
        { id: 'end', type: 'end', inputs: { echo: { ref: 'call.result.echo' } } },
      ],
      edges: [
        { source: 'start', target: 'call' },
        { source: 'call', target: 'end' },
      ],
    });
    exporter.reset();

    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const run = await api<{ id: string; status: string; outputs: Record<string, unknown> }>(
      stack.apiUrl,
      'POST',
      `/workflows/${workflowId}/runs?wait=20000`,
      { inputs: { message: 'hello traces' } },
      { traceparent: `00-${traceId}-${clientSpanId}-01` },
    );
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'succeeded', outputs: { echo: 'hello traces' } });

    // The worker's `run` span ends just after the run's terminal write, which ?wait may answer first.
    const deadline = Date.now() + 10_000;
    while (!exporter.getFinishedSpans().some((span) => span.name === 'run') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const spans = exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
    const named = (name: string) => spans.filter((span) => span.name === name);
    const byId = new Map(spans.map((span) => [idOf(span), span]));
    const ancestors = (span: ReadableSpan) => {
      const chain: string[] = [];
      for (let at = byId.get(parentOf(span) ?? ''); at; at = byId.get(parentOf(at) ?? '')) chain.push(at.name);
      return chain;
    };

    const [request] = named(`POST /workflows/:id/runs`);
    expect(request).toBeDefined();
    expect(request.kind).toBe(SpanKind.SERVER);
    expect(parentOf(request)).toBe(clientSpanId);
    // The run document is inserted under the request.
    expect(spans.some((span) => span.name === 'store.insert runs' && parentOf(span) === idOf(request))).toBe(true);

    const [runSpan] = named('run');
    expect(runSpan).toBeDefined();
    expect(runSpan.kind).toBe(SpanKind.CONSUMER);
    expect(runSpan.attributes['mcpflow.run.id']).toBe(run.body.id);
    expect(ancestors(runSpan)).toContain(request.name);
    // The claim and the terminal write are store commands of the run.
    expect(
      spans.filter((span) => span.name.startsWith('store.') && span.name.endsWith(' runs') && ancestors(span).includes('run')).length,
    ).toBeGreaterThanOrEqual(2);

    for (const nodeId of ['start', 'call', 'end']) {
      const [node] = named(`node ${nodeId}`);
      expect(node).toBeDefined();
      expect(parentOf(node)).toBe(idOf(runSpan));
    }
    const [call] = named('node call');
    const toolCall = spans.find((span) => span.name === 'mcp tools/call');
    expect(toolCall).toBeDefined();
    expect(ancestors(toolCall as ReadableSpan)).toContain('node call');
    expect(ancestors(toolCall as ReadableSpan)[0]).toBe(call.name);

    // The MCP server was told the trace: its tools/call request carried the span's traceparent.
    const traceparents = fixture.requestHeaders('traceparent').filter((value): value is string => value !== undefined);
    expect(traceparents).toContain(`00-${traceId}-${idOf(toolCall as ReadableSpan)}-01`);

    // Nothing secret in any span: the header value and the run's inputs stay out of attributes and names.
    const everything = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('hello traces');
  }, 60_000);
});
