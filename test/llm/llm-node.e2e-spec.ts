import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createOutboundFetch } from '#mcp';
import type { NodeDefinition } from '#workflow';
import { freePort } from '../support/services.js';
import { PROVIDER_ID, startLlmHarness, type LlmHarness } from '../support/llm-harness.js';

/** The `llm` node with the real openai client over HTTP against the scripted fake server. */
describe('llm node', () => {
  let harness: LlmHarness;

  beforeAll(async () => {
    harness = await startLlmHarness();
  });
  afterAll(async () => {
    await harness.close();
  });
  beforeEach(() => {
    harness.server.reset();
  });

  const llmNode = (config: Record<string, unknown> = {}, extra: Partial<NodeDefinition> = {}): NodeDefinition => ({
    id: 'ask',
    type: 'llm',
    config: { providerId: PROVIDER_ID, model: 'gpt-test', ...config },
    inputs: { system: { value: 'Be brief.' }, prompt: { template: 'Capital of {{start.country}}?' } },
    ...extra,
  });

  it('sends system and prompt with the key, returns text and usage, logs the model call', async () => {
    harness.server.enqueue({ text: 'Paris', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const { outcome, record } = await harness.run(llmNode({ temperature: 0.2, maxTokens: 50 }), { inputs: { country: 'France' } });

    expect(outcome.status).toBe('succeeded');
    expect(outcome.outputs).toEqual({ text: 'Paris' });
    expect(record.outputs).toEqual({ text: 'Paris', json: null, usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } });
    const [request] = harness.server.requests;
    expect(request.headers.authorization).toBe(`Bearer ${harness.apiKey}`);
    expect(request.body).toMatchObject({
      model: 'gpt-test',
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Capital of France?' },
      ],
    });
    expect(request.body.tools).toBeUndefined();
    expect(record.details).toMatchObject({
      providerId: PROVIDER_ID,
      model: 'gpt-test',
      usage: { totalTokens: 15 },
      modelCalls: [{ model: 'gpt-test', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 }, finishReason: 'stop' }],
    });
    expect((record.details?.modelCalls as Array<{ durationMs: number }>)[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  describe('structured output', () => {
    const responseSchema = {
      type: 'object',
      properties: { city: { type: 'string' }, population: { type: 'integer' } },
      required: ['city', 'population'],
      additionalProperties: false,
    };

    it('asks for json_schema and publishes the validated JSON', async () => {
      harness.server.enqueue({ text: '{"city":"Paris","population":2100000}' });
      const { outcome, record } = await harness.run(llmNode({ responseSchema }), { inputs: { country: 'France' } });
      expect(outcome.status).toBe('succeeded');
      expect(record.outputs.json).toEqual({ city: 'Paris', population: 2100000 });
      expect(harness.server.requests[0].body.response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'response', schema: responseSchema, strict: false },
      });
    });

    it('accepts JSON wrapped in a Markdown fence', async () => {
      harness.server.enqueue({ text: '```json\n{"city":"Rome","population":2800000}\n```' });
      const { record } = await harness.run(llmNode({ responseSchema }), { inputs: { country: 'Italy' } });
      expect(record.outputs.json).toEqual({ city: 'Rome', population: 2800000 });
    });

    it('fails with LLM_RESPONSE_INVALID when the reply does not match, naming the problems', async () => {
      harness.server.enqueue({ text: '{"city":"Paris","population":"lots","extra":1}' });
      const { outcome, record } = await harness.run(llmNode({ responseSchema }), { inputs: { country: 'France' } });
      expect(outcome.status).toBe('failed');
      expect(record.status).toBe('failed');
      expect(record.error?.code).toBe('LLM_RESPONSE_INVALID');
      expect(record.error?.message).toMatch(/population must be integer/);
      expect(record.error?.message).toMatch(/extra/);
      // The failed node still logs the model call and what it cost.
      expect(record.details).toMatchObject({ usage: { totalTokens: 15 }, modelCalls: [{ model: 'gpt-test' }] });
    });

    it('fails with LLM_RESPONSE_INVALID when the reply is not JSON', async () => {
      harness.server.enqueue({ text: 'Paris, about two million people.' });
      const { record } = await harness.run(llmNode({ responseSchema }), { inputs: { country: 'France' } });
      expect(record.error?.code).toBe('LLM_RESPONSE_INVALID');
      expect(record.error?.message).toMatch(/not JSON/);
    });
  });

  it('retries a 429 as the server asks (retry-after) and then succeeds', async () => {
    harness.server.enqueue({ status: 429, headers: { 'retry-after': '0.05' }, message: 'slow down' }, { text: 'ok after retry' });
    const { outcome, record } = await harness.run(llmNode(), { inputs: { country: 'France' } });
    expect(outcome.status).toBe('succeeded');
    expect(record.outputs.text).toBe('ok after retry');
    expect(harness.server.requests).toHaveLength(2);
  });

  it('fails with LLM_RATE_LIMITED once the retries are spent', async () => {
    const tooMany = { status: 429, headers: { 'retry-after-ms': '1' } };
    harness.server.enqueue(tooMany, tooMany, tooMany);
    const { record } = await harness.run(llmNode(), { inputs: { country: 'France' } });
    expect(record.error?.code).toBe('LLM_RATE_LIMITED');
    expect(harness.server.requests).toHaveLength(3);
  });

  it('fails with LLM_TIMEOUT when the model does not answer within the call timeout', async () => {
    const quick = await startLlmHarness({ maxRetries: 0 });
    try {
      quick.server.enqueue({ text: 'too late', delayMs: 5000 });
      const { record } = await quick.run(llmNode(), { inputs: { country: 'France' }, limits: { callTimeoutMs: 200 } });
      expect(record.error?.code).toBe('LLM_TIMEOUT');
    } finally {
      await quick.close();
    }
  });

  it('cancels an in-flight model call when the run is canceled', async () => {
    harness.server.enqueue({ text: 'never seen', delayMs: 10_000 });
    const controller = new AbortController();
    const started = Date.now();
    const running = harness.run(llmNode(), { inputs: { country: 'France' }, signal: controller.signal });
    await harness.server.waitForRequests(1);
    controller.abort();
    const { outcome, record } = await running;
    expect(outcome.status).toBe('canceled');
    expect(record.status).toBe('canceled');
    expect(Date.now() - started).toBeLessThan(5000);
    // The HTTP request itself was aborted, not left running in the background.
    const deadline = Date.now() + 2000;
    while (!harness.server.requests[0].aborted && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(harness.server.requests[0].aborted).toBe(true);
  });

  it('fails with LLM_UNREACHABLE when nothing listens at the base URL', async () => {
    const nowhere = await startLlmHarness({ baseURL: `http://127.0.0.1:${await freePort()}/v1`, maxRetries: 0 });
    try {
      const { record } = await nowhere.run(llmNode(), { inputs: { country: 'France' } });
      expect(record.error?.code).toBe('LLM_UNREACHABLE');
    } finally {
      await nowhere.close();
    }
  });

  it('goes through the outbound policy: a refused destination fails with OUTBOUND_BLOCKED, nothing sent', async () => {
    const guarded = createOutboundFetch({ deny: ['private'] });
    const locked = await startLlmHarness({ fetch: guarded, maxRetries: 0 });
    try {
      locked.server.enqueue({ text: 'should not be reached' });
      const { record } = await locked.run(llmNode(), { inputs: { country: 'France' } });
      expect(record.error?.code).toBe('OUTBOUND_BLOCKED');
      expect(locked.server.requests).toHaveLength(0);
    } finally {
      locked.server.reset();
      await locked.close();
      guarded.close();
    }
  });

  it('fails with LLM_PROVIDER_NOT_FOUND for an unknown provider', async () => {
    const { record } = await harness.run(llmNode({ providerId: 'nope' }), { inputs: { country: 'France' } });
    expect(record.error?.code).toBe('LLM_PROVIDER_NOT_FOUND');
    expect(harness.server.requests).toHaveLength(0);
  });

  it('never lets the key into the error or the log, even when the provider echoes it', async () => {
    harness.server.enqueue({ status: 401, message: `Incorrect API key provided: ${harness.apiKey}` });
    const { outcome, records } = await harness.run(llmNode(), { inputs: { country: 'France' } });
    const [failed] = records.filter((record) => record.status === 'failed');
    expect(failed.error?.code).toBe('LLM_AUTH_FAILED');
    expect(failed.error?.message).toContain('***');
    expect(JSON.stringify({ outcome, records })).not.toContain(harness.apiKey);
  });
});
