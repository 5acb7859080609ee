import { describe, expect, it } from '@jest/globals';
import { systemClock } from '../engine/clock.js';
import { EngineError } from '../engine/errors.js';
import { createFakeToolbox, fakeServices, toolNode, type FakeTool } from '../engine/testing/fake-services.js';
import type { NodeExecutionContext, NodeResult } from '../engine/types.js';
import { mcpToolNode } from './mcp-tool.js';

async function execute(
  tool: FakeTool,
  extra: Partial<NodeExecutionContext> = {},
): Promise<{ result: NodeResult; calls: ReturnType<typeof createFakeToolbox>['calls'] }> {
  const toolbox = createFakeToolbox({ t: tool });
  const context: NodeExecutionContext = {
    runId: 'r',
    node: toolNode('n', 't'),
    inputs: { q: 'x' },
    attempt: 1,
    signal: new AbortController().signal,
    services: fakeServices(toolbox, systemClock),
    callTimeoutMs: 1234,
    ...extra,
  };
  return { result: await mcpToolNode.execute(context), calls: toolbox.calls };
}

describe('mcpTool node', () => {
  it('prefers structuredContent as result and passes arguments, timeout and mayRepeat=false', async () => {
    const { result, calls } = await execute({
      handler: () => ({ structuredContent: { n: 1 }, text: '{"n":2}', content: [{ type: 'text', text: '{"n":2}' }] }),
    });
    expect(result.outputs).toEqual({ result: { n: 1 }, text: '{"n":2}', content: [{ type: 'text', text: '{"n":2}' }], isError: false });
    expect(calls[0]).toMatchObject({ toolsetId: 'tools', tool: 't', arguments: { q: 'x' }, timeoutMs: 1234, mayRepeat: false });
    expect(result.details).toEqual({ toolsetId: 'tools', tool: 't', transport: 'streamable-http', sessionReused: false, isError: false });
  });

  it('parses text as JSON when it parses, else keeps the text', async () => {
    expect((await execute({ handler: () => ({ text: '[1,2]' }) })).result.outputs.result).toEqual([1, 2]);
    expect((await execute({ handler: () => ({ text: 'plain words' }) })).result.outputs.result).toBe('plain words');
  });

  it('allows repeating a sent call when the tool is idempotent', async () => {
    const { calls } = await execute({ annotations: { idempotentHint: true } });
    expect(calls[0].mayRepeat).toBe(true);
  });

  it('turns an isError result into an MCP_TOOL_ERROR failure that keeps the call details', async () => {
    const failure = await execute({ handler: () => ({ isError: true, text: 'bad input' }) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EngineError);
    expect(failure).toMatchObject({ code: 'MCP_TOOL_ERROR', message: 'bad input', details: { tool: 't', isError: true } });
  });
});
