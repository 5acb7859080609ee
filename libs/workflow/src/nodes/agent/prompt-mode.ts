import type { LlmMessage } from '../llm/llm-client.js';
import { cleanToolSchema } from './clean-schema.js';
import { parsePromptToolCalls, TOOL_CALL_TYPE } from './prompt-calls.js';
import type { AgentProtocol } from './protocol.js';
import { resolveCall, TOOL_CALL_INVALID, type RequestedCall } from './requested-call.js';
import type { Toolbox } from './toolbox.js';

/** The part of the system prompt that teaches the call syntax and lists the tools, by server (toolset id). */
export function describeToolsForPrompt(toolbox: Toolbox): string {
  const servers = new Map<string, string[]>();
  for (const tool of toolbox.tools) {
    const lines = [`### ${tool.tool}`];
    if (tool.description) lines.push(tool.description);
    lines.push(`Arguments (JSON Schema): ${JSON.stringify(cleanToolSchema(tool.inputSchema))}`);
    servers.set(tool.toolsetId, [...(servers.get(tool.toolsetId) ?? []), lines.join('\n')]);
  }
  const example = `{"type":"${TOOL_CALL_TYPE}","server_name":"<server>","tool_name":"<tool>","arguments":{}}`;
  return [
    '# Tools',
    'You can call the tools of the MCP servers listed below. To call a tool, write a fenced JSON block exactly like this one, then stop and wait:',
    '```json\n' + example + '\n```',
    'Several blocks in one reply run at the same time. The results come back in the next message.',
    `When you have what you need, give your final answer without any ${TOOL_CALL_TYPE} block.`,
    ...[...servers].map(([server, tools]) => `## Server "${server}"\n\n${tools.join('\n\n')}`),
  ].join('\n\n');
}

function resultLine(call: RequestedCall, content: string, isError: boolean): string {
  return `[${call.id}] ${call.name} → ${isError ? 'error' : 'result'}:\n${content}`;
}

/** Tools described in the system prompt; calls parsed from fenced use_mcp_tool blocks; results in one user message. */
export function promptProtocol(toolbox: Toolbox): AgentProtocol {
  const toolsText = describeToolsForPrompt(toolbox);
  return {
    systemPrompt: (system) => (system ? `${system}\n\n${toolsText}` : toolsText),
    requestedCalls: (response, iteration) =>
      parsePromptToolCalls(response.text).map((call, index) => {
        const id = `call_${iteration}_${index + 1}`;
        const name = `${call.serverName ?? '?'}/${call.toolName ?? '?'}`;
        if (call.error) return { id, name, arguments: {}, problem: { code: TOOL_CALL_INVALID, message: call.error } };
        // A model that leaves out the server, or uses the tool's unique name, still means one tool.
        const tool =
          (call.serverName && call.toolName && toolbox.byServerAndTool(call.serverName, call.toolName)) ||
          toolbox.byFunctionName(call.toolName ?? '');
        return resolveCall(toolbox, id, name, tool, call.arguments);
      }),
    assistantMessage: (response): LlmMessage => ({ role: 'assistant', content: response.text ?? '' }),
    resultMessages: (outcomes, calls) => [
      {
        role: 'user',
        content: outcomes.map((outcome, index) => resultLine(calls[index], outcome.content, outcome.record.isError)).join('\n\n'),
      },
    ],
  };
}
