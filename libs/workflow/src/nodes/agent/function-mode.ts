import { cleanToolSchema } from './clean-schema.js';
import type { AgentProtocol } from './protocol.js';
import { resolveCall } from './requested-call.js';
import type { Toolbox } from './toolbox.js';

/** Native function calling: one function tool per MCP tool, one `tool` message per call. */
export function functionCallingProtocol(toolbox: Toolbox): AgentProtocol {
  return {
    tools: toolbox.tools.map((tool) => ({
      name: tool.functionName,
      description: tool.description,
      parameters: cleanToolSchema(tool.inputSchema),
    })),
    systemPrompt: (system) => system,
    requestedCalls: (response) =>
      response.toolCalls.map((call) => resolveCall(toolbox, call.id, call.name, toolbox.byFunctionName(call.name), call.arguments)),
    assistantMessage: (response) => ({ role: 'assistant', content: response.text, toolCalls: response.toolCalls }),
    resultMessages: (outcomes, calls) =>
      outcomes.map((outcome, index) => ({ role: 'tool', toolCallId: calls[index].id, content: outcome.content })),
  };
}
