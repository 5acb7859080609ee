import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startServerEverything, type ServerEverything } from '#mcp/testing';
import type { LogItem } from '#workflow/nest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fake-openai-server.js';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, registerToolset, runToEnd, startRunStack, waitForRun } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { rawDatabaseDump } from '../support/toolsets.js';

const API_KEY = 'sk-e2e-agent-key-5f1c2a9e7b';

/** Through REST: provider and toolset registered, a workflow with an agent node run by the worker. */
describe('agent workflow, API → queue → worker', () => {
  let stack: TestStack;
  let llm: FakeOpenAiServer;
  let everything: ServerEverything;
  let providerId: string;
  let toolsetId: string;

  beforeAll(async () => {
    [stack, llm, everything] = await Promise.all([startRunStack(), startFakeOpenAiServer(), startServerEverything('streamableHttp')]);
    const provider = await api<{ id: string }>(stack.apiUrl, 'POST', '/providers', {
      name: 'fake',
      baseURL: llm.baseURL,
      apiKey: API_KEY,
      models: ['gpt-test'],
    });
    expect(provider.status).toBe(201);
    providerId = provider.body.id;
    toolsetId = await registerToolset(stack.apiUrl, everything.url, 'everything');
  });
  afterAll(async () => {
    await stack?.close();
    await Promise.all([llm?.close(), everything?.close()]);
  });

  const workflow = (agentConfig: Record<string, unknown> = {}) => ({
    name: 'calculator agent',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    nodes: [
      { id: 'start', type: 'start', config: {}, inputs: {} },
      {
        id: 'agent',
        type: 'agent',
        config: { providerId, model: 'gpt-test', toolsets: [{ toolsetId, tools: ['get-sum', 'echo'] }], maxIterations: 4, ...agentConfig },
        inputs: { prompt: { template: 'Add {{start.a}} and {{start.b}}.' } },
      },
      { id: 'end', type: 'end', config: {}, inputs: { answer: { ref: 'agent.text' }, calls: { ref: 'agent.toolCalls' } } },
    ],
    edges: [
      { source: 'start', target: 'agent' },
      { source: 'agent', target: 'end' },
    ],
  });

  it('validates agent nodes at save time (unknown tool, bad maxIterations)', async () => {
    const res = await api<{ errors: Array<{ path: string; code: string }> }>(
      stack.apiUrl,
      'POST',
      '/workflows',
      workflow({ toolsets: [{ toolsetId, tools: ['nope'] }], maxIterations: 0 }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/nodes/1/config/toolsets/0/tools/0', code: 'UNKNOWN_TOOL' }),
        expect.objectContaining({ path: '/nodes/1/config/maxIterations', code: 'INVALID_CONFIG' }),
      ]),
    );
  });

  it('rejects an unknown provider at save time, with the path of the providerId', async () => {
    const res = await api<{ code: string; errors: Array<{ path: string; code: string }> }>(
      stack.apiUrl,
      'POST',
      '/workflows',
      workflow({ providerId: '0123456789abcdef01234567' }),
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WORKFLOW_INVALID');
    expect(res.body.errors).toEqual([{ path: '/nodes/1/config/providerId', code: 'UNKNOWN_PROVIDER', message: expect.any(String) }]);
  });

  it('runs the agent: the model calls get-sum on server-everything, then answers; logs show both calls', async () => {
    llm.reset();
    llm.enqueue({ toolCalls: [{ name: 'get-sum', arguments: { a: 20, b: 22 } }] }, { text: 'It is 42.' });
    const workflowId = await createWorkflow(stack.apiUrl, workflow());
    const run = await runToEnd(stack.apiUrl, workflowId, { a: 20, b: 22 });

    expect(run.status).toBe('succeeded');
    expect(run.outputs).toMatchObject({
      answer: 'It is 42.',
      calls: [{ tool: 'get-sum', isError: false, result: 'The sum of 20 and 22 is 42.' }],
    });
    expect(llm.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);

    const logs = await allLogs(stack.apiUrl, run.id);
    const agentLog = logs.find((item) => item.nodeId === 'agent') as LogItem & Record<string, unknown>;
    expect(agentLog).toMatchObject({
      status: 'succeeded',
      model: 'gpt-test',
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
      modelCalls: [{ model: 'gpt-test' }, { model: 'gpt-test' }],
      toolCalls: [{ toolsetId, tool: 'get-sum', arguments: { a: 20, b: 22 }, isError: false, sessionReused: false }],
    });

    const everywhere = JSON.stringify({ run, logs, db: await rawDatabaseDump(stack.config) });
    expect(everywhere).not.toContain(API_KEY);
  });

  it('fails the run with AGENT_MAX_ITERATIONS, and the log keeps the calls made', async () => {
    llm.reset();
    const again = { toolCalls: [{ name: 'get-sum', arguments: { a: 1, b: 1 } }] };
    llm.enqueue(again, again);
    const workflowId = await createWorkflow(stack.apiUrl, workflow({ maxIterations: 2 }));
    const run = await runToEnd(stack.apiUrl, workflowId, { a: 1, b: 1 });
    expect(run.status).toBe('failed');
    expect(run.error).toMatchObject({ code: 'AGENT_MAX_ITERATIONS', nodeId: 'agent' });
    const agentLog = (await allLogs(stack.apiUrl, run.id)).find((item) => item.nodeId === 'agent') as LogItem & Record<string, unknown>;
    expect(agentLog).toMatchObject({
      status: 'failed',
      error: { code: 'AGENT_MAX_ITERATIONS' },
      iterations: 2,
      toolCalls: [{ tool: 'get-sum' }],
    });
  });

  it('cancels a run while the model is thinking', async () => {
    llm.reset();
    llm.enqueue({ text: 'too late', delayMs: 15_000 });
    const workflowId = await createWorkflow(stack.apiUrl, workflow());
    const started = await api<{ id: string }>(stack.apiUrl, 'POST', `/workflows/${workflowId}/runs`, { inputs: { a: 1, b: 2 } });
    expect(started.status).toBe(202);
    await llm.waitForRequests(1);
    expect((await api(stack.apiUrl, 'POST', `/runs/${started.body.id}/cancel`)).status).toBeLessThan(300);
    const run = await waitForRun(stack.apiUrl, started.body.id, 10_000);
    expect(run.status).toBe('canceled');
    const deadline = Date.now() + 3000;
    while (!llm.requests[0].aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(llm.requests[0].aborted).toBe(true);
  });
});
