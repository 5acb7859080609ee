import { describe, expect, it } from '@jest/globals';
import { createFakeToolbox, fakeServices, TOOLSET_ID } from '../../engine/testing/fake-services.js';
import type { NodeDefinition, NodeExecutionContext } from '../../engine/types.js';
import { LLM_CLIENT_EXTRA, type LlmChatRequest, type LlmChatResponse, type LlmClient } from '../llm/llm-client.js';
import { agentNode } from './agent-node.js';

/** The agent's executor alone: a scripted LlmClient and the engine's in-memory tools. */
function scriptedModel(replies: Array<Partial<LlmChatResponse>>): LlmClient & { requests: LlmChatRequest[] } {
  const requests: LlmChatRequest[] = [];
  return {
    requests,
    chat: async (request) => {
      requests.push(structuredClone({ ...request, signal: undefined }) as unknown as LlmChatRequest);
      const reply = replies.shift();
      if (!reply) throw new Error('no scripted reply');
      return { model: request.model, text: null, toolCalls: [], usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, ...reply };
    },
  };
}

const toolbox = createFakeToolbox({
  'files.read': { handler: (request) => ({ text: `read ${String(request.arguments.path)}` }) },
  hidden: { usable: false },
});

function node(config: Record<string, unknown> = {}): NodeDefinition {
  return {
    id: 'agent',
    type: 'agent',
    config: { providerId: 'p', model: 'm', toolsets: [{ toolsetId: TOOLSET_ID }], maxIterations: 3, ...config },
    inputs: {},
  };
}

function context(llm: LlmClient, config: Record<string, unknown> = {}): NodeExecutionContext {
  const services = { ...fakeServices(toolbox), extras: { [LLM_CLIENT_EXTRA]: llm } };
  return { runId: 'r', node: node(config), inputs: { prompt: 'go' }, attempt: 1, signal: new AbortController().signal, services };
}

describe('agent node', () => {
  it('reports every config problem with its path', async () => {
    const issues = await agentNode.validate!({
      node: node({
        providerId: '',
        maxIterations: 0,
        mode: 'chat',
        toolsets: [{ toolsetId: 'nope' }, { toolsetId: TOOLSET_ID, tools: ['hidden', 'ghost'] }],
      }),
      nodePath: '/nodes/1',
      catalog: toolbox.catalog,
    });
    expect(issues.map((issue) => `${issue.path} ${issue.code}`)).toEqual([
      '/nodes/1/config/providerId INVALID_CONFIG',
      '/nodes/1/config/maxIterations INVALID_CONFIG',
      '/nodes/1/config/mode INVALID_CONFIG',
      '/nodes/1/config/toolsets/0/toolsetId UNKNOWN_TOOLSET',
      '/nodes/1/config/toolsets/1/tools/0 TOOL_UNUSABLE',
      '/nodes/1/config/toolsets/1/tools/1 UNKNOWN_TOOL',
    ]);
  });

  it('offers only usable tools, under valid names, and routes a call back to the MCP name', async () => {
    const llm = scriptedModel([{ toolCalls: [{ id: 'c1', name: 'files_read', arguments: '{"path":"/a"}' }] }, { text: 'done' }]);
    const result = await agentNode.execute(context(llm));
    expect(llm.requests[0].tools?.map((tool) => tool.name)).toEqual(['files_read']);
    expect(toolbox.calls.at(-1)).toMatchObject({ toolsetId: TOOLSET_ID, tool: 'files.read', arguments: { path: '/a' } });
    expect(llm.requests[1].messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'c1', content: 'read /a' });
    expect(result.outputs).toMatchObject({ text: 'done', toolCalls: [{ name: 'files_read', tool: 'files.read', result: 'read /a' }] });
  });

  it('sends no tools when the agent has none, and answers at once', async () => {
    const llm = scriptedModel([{ text: 'hello' }]);
    const result = await agentNode.execute(context(llm, { toolsets: [] }));
    expect(llm.requests[0].tools).toBeUndefined();
    expect(result.outputs.text).toBe('hello');
  });

  it('prompt mode accepts a call that names the tool without its server', async () => {
    const block = '```json\n{"type":"use_mcp_tool","tool_name":"files_read","arguments":{"path":"/b"}}\n```';
    const llm = scriptedModel([{ text: block }, { text: 'ok' }]);
    const result = await agentNode.execute(context(llm, { mode: 'prompt' }));
    expect(result.outputs.toolCalls).toMatchObject([{ tool: 'files.read', isError: false }]);
    expect(llm.requests[0].messages[0]).toMatchObject({ role: 'system' });
  });

  it('fails with UNKNOWN_TOOLSET when a toolset disappeared since the workflow was saved', async () => {
    const llm = scriptedModel([]);
    await expect(agentNode.execute(context(llm, { toolsets: [{ toolsetId: 'gone' }] }))).rejects.toMatchObject({ code: 'UNKNOWN_TOOLSET' });
  });

  it('fails with LLM_NOT_CONFIGURED on a host without an LLM client', async () => {
    const bare = { ...context(scriptedModel([])), services: fakeServices(toolbox) };
    await expect(agentNode.execute(bare)).rejects.toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
  });
});
