import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { NodeDefinition } from '#workflow';
import { EVERYTHING, FIXTURE, startAgentTools, type AgentTools, type RunTools } from '../support/agent-tools.js';
import type { ChatRequestBody, RecordedRequest } from '../support/fake-openai-server.js';
import { PROVIDER_ID, startLlmHarness, type LlmHarness, type NodeRun } from '../support/llm-harness.js';

/**
 * The `agent` node: real openai client → scripted fake model over HTTP; real MCP servers
 * (server-everything, the fixture server) through a per-run McpClientPool and the worker's
 * PooledToolInvoker.
 */
interface ToolCallRecord {
  id: string;
  name: string;
  toolsetId?: string;
  tool?: string;
  arguments: Record<string, unknown>;
  isError: boolean;
  durationMs: number;
  sessionReused?: boolean;
  error?: { code: string; message: string };
  result?: unknown;
}

const lastMessage = (request: RecordedRequest) => request.body.messages[request.body.messages.length - 1];
const toolMessages = (body: ChatRequestBody) => body.messages.filter((message) => message.role === 'tool');

describe('agent node', () => {
  let llm: LlmHarness;
  let tools: AgentTools;
  let run: RunTools;

  beforeAll(async () => {
    [llm, tools] = await Promise.all([startLlmHarness(), startAgentTools()]);
  });
  afterAll(async () => {
    await Promise.all([llm.close(), tools.close()]);
  });
  beforeEach(() => {
    llm.server.reset();
    run = tools.newRun();
  });
  afterEach(async () => {
    await run.close();
    // The run's pool ended every MCP session it opened.
    expect(tools.fixture.sessions()).toBe(0);
    expect(llm.server.remaining()).toBe(0);
  });

  const agent = (config: Record<string, unknown> = {}): NodeDefinition => ({
    id: 'agent',
    type: 'agent',
    config: {
      providerId: PROVIDER_ID,
      model: 'gpt-test',
      toolsets: [{ toolsetId: EVERYTHING, tools: ['get-sum', 'echo'] }],
      maxIterations: 5,
      ...config,
    },
    inputs: { system: { value: 'You are a calculator.' }, prompt: { template: 'Add {{start.a}} and {{start.b}}, then echo the result.' } },
  });
  const runAgent = (node: NodeDefinition, signal?: AbortSignal): Promise<NodeRun> =>
    llm.run(node, { inputs: { a: 2, b: 3 }, tools: run.invoker, catalog: tools.catalog, signal });
  const toolCallsOf = (result: NodeRun) => result.record.outputs.toolCalls as ToolCallRecord[];

  it('calls real server-everything tools, get-sum then echo, feeding each result back', async () => {
    llm.server.enqueue(
      { toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }], usage: { prompt_tokens: 100, completion_tokens: 10 } },
      (request) => {
        const sum = lastMessage(request);
        expect(sum).toMatchObject({ role: 'tool', content: 'The sum of 2 and 3 is 5.' });
        return { toolCalls: [{ name: 'echo', arguments: { message: 'the sum is 5' } }] };
      },
      { text: 'The sum is 5.' },
    );
    const result = await runAgent(agent());

    expect(result.outcome.status).toBe('succeeded');
    expect(result.outcome.outputs).toEqual({ text: 'The sum is 5.' });
    const [first, second, third] = llm.server.requests;
    expect(first.headers.authorization).toBe(`Bearer ${llm.apiKey}`);
    expect(first.body.messages).toEqual([
      { role: 'system', content: 'You are a calculator.' },
      { role: 'user', content: 'Add 2 and 3, then echo the result.' },
    ]);
    // Tools in the server's order; the config only chooses which.
    expect(first.body.tools?.map((tool) => tool.function.name)).toEqual(['echo', 'get-sum']);
    expect(first.body.tools?.[1].function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
    });
    // The assistant's tool call and its result go back with matching ids.
    const asked = second.body.messages.find((message) => message.role === 'assistant');
    expect(toolMessages(second.body)[0].tool_call_id).toBe(asked?.tool_calls?.[0].id);
    expect(lastMessage(third).content).toMatch(/Echo: the sum is 5/);

    const calls = toolCallsOf(result);
    expect(calls).toMatchObject([
      {
        name: 'get-sum',
        toolsetId: EVERYTHING,
        tool: 'get-sum',
        arguments: { a: 2, b: 3 },
        isError: false,
        sessionReused: false,
        result: 'The sum of 2 and 3 is 5.',
      },
      { name: 'echo', toolsetId: EVERYTHING, tool: 'echo', isError: false, sessionReused: true },
    ]);
    expect(result.record.outputs.usage).toEqual({ promptTokens: 120, completionTokens: 20, totalTokens: 140 });
    expect(result.record.details).toMatchObject({ model: 'gpt-test', mode: 'function', iterations: 3, usage: { totalTokens: 140 } });
    const details = result.record.details as { modelCalls: unknown[]; toolCalls: ToolCallRecord[] };
    expect(details.modelCalls).toHaveLength(3);
    expect(details.toolCalls.map((call) => [call.tool, call.isError, typeof call.durationMs, call.sessionReused])).toEqual([
      ['get-sum', false, 'number', false],
      ['echo', false, 'number', true],
    ]);
  });

  it('runs the tool calls of one turn concurrently, across toolsets whose names clash, mapped back exactly', async () => {
    const toolsets = [
      { toolsetId: EVERYTHING, tools: ['echo', 'get-sum'] },
      { toolsetId: FIXTURE, tools: ['echo', 'slow'] },
    ];
    const slow = { steps: 1, stepMs: 400, progress: false };
    const echoesBefore = tools.fixture.calls('echo');
    llm.server.enqueue(
      {
        toolCalls: [
          { name: 'slow', arguments: slow },
          { name: 'slow', arguments: slow },
          { name: 'echo_2', arguments: { message: 'from the fixture' } },
          { name: 'echo', arguments: { message: 'from everything' } },
        ],
      },
      { text: 'all done' },
    );
    const started = Date.now();
    const result = await runAgent(agent({ toolsets }));
    const elapsed = Date.now() - started;

    expect(result.outcome.status).toBe('succeeded');
    expect(llm.server.requests[0].body.tools?.map((tool) => tool.function.name)).toEqual(['echo', 'get-sum', 'echo_2', 'slow']);
    expect(tools.fixture.calls('echo')).toBe(echoesBefore + 1);
    const calls = toolCallsOf(result);
    expect(calls.map((call) => `${call.name}→${call.toolsetId}/${call.tool}`)).toEqual([
      `slow→${FIXTURE}/slow`,
      `slow→${FIXTURE}/slow`,
      `echo_2→${FIXTURE}/echo`,
      `echo→${EVERYTHING}/echo`,
    ]);
    expect(calls[2].result).toEqual({ echo: 'from the fixture' });
    // Two 400 ms calls in one turn: concurrent, so the whole run takes less than the two in turn.
    expect(calls[0].durationMs).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(calls[0].durationMs + calls[1].durationMs);
    // One tool message per call, in the order asked, each answering its own call id.
    const second = llm.server.requests[1].body;
    const ids = second.messages.find((message) => message.role === 'assistant')?.tool_calls?.map((call) => call.id);
    expect(toolMessages(second).map((message) => message.tool_call_id)).toEqual(ids);
    expect(toolMessages(second)[2].content).toBe('{"echo":"from the fixture"}');
  });

  it('answers an unknown tool name with an error the model can act on, and redacts secret-looking arguments', async () => {
    llm.server.enqueue(
      { toolCalls: [{ name: 'multiply', arguments: { a: 2, b: 3, password: 'hunter2' } }] },
      (request) => {
        const error = JSON.parse(String(lastMessage(request).content)) as { error: { code: string; message: string } };
        expect(error.error.code).toBe('UNKNOWN_TOOL');
        expect(error.error.message).toMatch(/no tool named "multiply"; available tools: echo, get-sum/);
        return { toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }] };
      },
      { text: '5' },
    );
    const result = await runAgent(agent());
    expect(result.outcome.status).toBe('succeeded');
    const [unknown, sum] = toolCallsOf(result);
    expect(unknown).toMatchObject({
      name: 'multiply',
      isError: true,
      error: { code: 'UNKNOWN_TOOL' },
      arguments: { a: 2, b: 3, password: '***' },
    });
    expect(unknown.toolsetId).toBeUndefined();
    expect(sum).toMatchObject({ tool: 'get-sum', isError: false });
    expect(JSON.stringify(result.records)).not.toContain('hunter2');
  });

  it('answers malformed and schema-violating arguments with errors, and the model corrects them', async () => {
    llm.server.enqueue(
      {
        toolCalls: [
          { name: 'get-sum', arguments: '{"a": 2, "b":' },
          { name: 'get-sum', arguments: { a: 'two', b: 3 } },
        ],
      },
      (request) => {
        const [malformed, invalid] = toolMessages(request.body).map(
          (message) => JSON.parse(String(message.content)) as { error: { code: string; message: string } },
        );
        expect(malformed.error.code).toBe('TOOL_ARGUMENTS_INVALID');
        expect(malformed.error.message).toMatch(/not valid JSON/);
        expect(invalid.error.code).toBe('MCP_INPUT_INVALID');
        expect(invalid.error.message).toMatch(/\ba\b/);
        return { toolCalls: [{ name: 'get-sum', arguments: { a: 2, b: 3 } }] };
      },
      { text: '5' },
    );
    const result = await runAgent(agent());
    expect(result.outcome.status).toBe('succeeded');
    expect(toolCallsOf(result).map((call) => [call.isError, call.error?.code])).toEqual([
      [true, 'TOOL_ARGUMENTS_INVALID'],
      [true, 'MCP_INPUT_INVALID'],
      [false, undefined],
    ]);
  });

  it('feeds an isError tool result back as an error, and the run goes on', async () => {
    llm.server.enqueue({ toolCalls: [{ name: 'fail', arguments: { reason: 'disk full' } }] }, (request) => {
      expect(JSON.parse(String(lastMessage(request).content))).toEqual({ error: { code: 'MCP_TOOL_ERROR', message: 'disk full' } });
      return { text: 'The tool failed: disk full.' };
    });
    const result = await runAgent(agent({ toolsets: [{ toolsetId: FIXTURE, tools: ['fail'] }] }));
    expect(result.outcome.status).toBe('succeeded');
    expect(toolCallsOf(result)).toMatchObject([
      { tool: 'fail', isError: true, error: { code: 'MCP_TOOL_ERROR', message: 'disk full' }, sessionReused: false },
    ]);
  });

  it('fails with AGENT_MAX_ITERATIONS when the model keeps asking for tools, logging what it did', async () => {
    const again = { toolCalls: [{ name: 'get-sum', arguments: { a: 1, b: 1 } }] };
    llm.server.enqueue(again, again);
    const result = await runAgent(agent({ maxIterations: 2 }));
    expect(result.outcome.status).toBe('failed');
    expect(result.record.error?.code).toBe('AGENT_MAX_ITERATIONS');
    expect(result.record.error?.message).toMatch(/maxIterations \(2\)/);
    expect(llm.server.requests).toHaveLength(2);
    // The last turn's calls were not run: no model call would have read them.
    expect(result.record.details).toMatchObject({ iterations: 2, toolCalls: [{ tool: 'get-sum', isError: false }] });
    expect((result.record.details?.toolCalls as unknown[]).length).toBe(1);
  });

  it('prompt mode: tools described in the system prompt, calls read from fenced use_mcp_tool blocks', async () => {
    const block = (tool: string, args: Record<string, unknown>) =>
      '```json\n' + JSON.stringify({ type: 'use_mcp_tool', server_name: EVERYTHING, tool_name: tool, arguments: args }) + '\n```';
    llm.server.enqueue(
      { text: `Let me add.\n${block('get-sum', { a: 2, b: 3 })}` },
      (request) => {
        expect(request.body.tools).toBeUndefined();
        const results = lastMessage(request);
        expect(results.role).toBe('user');
        expect(results.content).toBe(`[call_1_1] ${EVERYTHING}/get-sum → result:\nThe sum of 2 and 3 is 5.`);
        return { text: `${block('echo', { message: 'five' })}\n${block('nope', {})}` };
      },
      (request) => {
        expect(lastMessage(request).content).toMatch(/\[call_2_1\] everything\/echo → result:\nEcho: five/);
        expect(lastMessage(request).content).toMatch(/\[call_2_2\] everything\/nope → error:\n\{"error":\{"code":"UNKNOWN_TOOL"/);
        return { text: 'The answer is 5.' };
      },
    );
    const result = await runAgent(agent({ mode: 'prompt' }));
    expect(result.outcome.status).toBe('succeeded');
    expect(result.outcome.outputs).toEqual({ text: 'The answer is 5.' });
    const system = String(llm.server.requests[0].body.messages[0].content);
    expect(system.startsWith('You are a calculator.\n\n# Tools')).toBe(true);
    expect(system).toContain(`## Server "${EVERYTHING}"`);
    expect(system).toContain('### get-sum');
    expect(system).toContain('"type":"use_mcp_tool"');
    expect(toolCallsOf(result).map((call) => [call.id, call.tool ?? call.name, call.isError])).toEqual([
      ['call_1_1', 'get-sum', false],
      ['call_2_1', 'echo', false],
      ['call_2_2', `${EVERYTHING}/nope`, true],
    ]);
    expect(result.record.details).toMatchObject({ mode: 'prompt', iterations: 3 });
  });

  it('is canceled with the run while waiting for the model', async () => {
    llm.server.enqueue({ text: 'never', delayMs: 10_000 });
    const controller = new AbortController();
    const running = runAgent(agent(), controller.signal);
    await llm.server.waitForRequests(1);
    controller.abort();
    const result = await running;
    expect(result.outcome.status).toBe('canceled');
    expect(result.record.status).toBe('canceled');
  });

  it('never puts the provider key in run records', async () => {
    llm.server.enqueue({ toolCalls: [{ name: 'get-sum', arguments: { a: 1, b: 2 } }] }, { text: '3' });
    const result = await runAgent(agent());
    expect(result.outcome.status).toBe('succeeded');
    expect(JSON.stringify({ outcome: result.outcome, records: result.records })).not.toContain(llm.apiKey);
  });
});
