import { EngineError } from '../../engine/errors.js';
import type { NodeExecutionContext } from '../../engine/types.js';
import { LLM_ERROR_CODES, type LlmMessage } from '../llm/llm-client.js';
import { callModel, type ModelCallLog } from '../llm/model-config.js';
import type { AgentConfig } from './agent-config.js';
import type { AgentProtocol } from './protocol.js';
import { runToolCall, type ToolCallOutcome } from './run-tool-call.js';

/** What the loop did so far; the caller keeps it, so a failure still reports it. */
export interface AgentTrace {
  modelCalls: ModelCallLog[];
  toolCalls: ToolCallOutcome[];
}

/**
 * The agent loop: call the model; run every tool call it asked for, concurrently, through the
 * run's tool invoker; feed the results back; until a reply asks for no tool (the final answer).
 * A reply that still asks for tools on the last allowed model call fails the node with
 * AGENT_MAX_ITERATIONS — its calls are not run, as no model call would read their results.
 */
export async function runAgentLoop(
  context: NodeExecutionContext,
  config: AgentConfig,
  protocol: AgentProtocol,
  opening: LlmMessage[],
  trace: AgentTrace,
): Promise<string> {
  const messages = [...opening];
  for (let iteration = 1; ; iteration += 1) {
    const response = await callModel(
      context,
      config,
      { messages, tools: protocol.tools?.length ? protocol.tools : undefined },
      trace.modelCalls,
    );
    const calls = protocol.requestedCalls(response, iteration);
    if (calls.length === 0) return response.text ?? '';
    if (iteration >= config.maxIterations) {
      const asked = calls.map((call) => call.name).join(', ');
      throw new EngineError(
        LLM_ERROR_CODES.agentMaxIterations,
        `the agent reached maxIterations (${config.maxIterations}) without a final answer; its last reply still asked for: ${asked}`,
      );
    }
    messages.push(protocol.assistantMessage(response));
    const outcomes = await Promise.all(calls.map((call) => runToolCall(call, iteration, context)));
    trace.toolCalls.push(...outcomes);
    messages.push(...protocol.resultMessages(outcomes, calls));
  }
}
