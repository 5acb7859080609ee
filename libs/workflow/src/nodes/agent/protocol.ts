import type { LlmChatResponse, LlmFunctionTool, LlmMessage } from '../llm/llm-client.js';
import type { RequestedCall } from './requested-call.js';
import type { ToolCallOutcome } from './run-tool-call.js';

/**
 * How tools reach the model and calls come back: native function calling, or (for models
 * without it) tools described in the system prompt and calls written as fenced JSON blocks.
 * The loop is the same for both; only this translation differs.
 */
export interface AgentProtocol {
  /** Function tools to send with each request (none in prompt mode). */
  tools?: LlmFunctionTool[];
  /** The system message to send, given the node's own `system` input. */
  systemPrompt(system: string | undefined): string | undefined;
  /** The tool calls a reply asks for, in order; none means the reply is the final answer. */
  requestedCalls(response: LlmChatResponse, iteration: number): RequestedCall[];
  /** The reply as it goes back into the conversation. */
  assistantMessage(response: LlmChatResponse): LlmMessage;
  /** The results of one turn's calls, in the order they were asked for. */
  resultMessages(outcomes: ToolCallOutcome[], calls: RequestedCall[]): LlmMessage[];
}
