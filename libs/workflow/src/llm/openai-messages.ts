import type OpenAI from 'openai';
import type { LlmChatRequest, LlmChatResponse, LlmMessage } from '../nodes/llm/llm-client.js';

type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type CreateParams = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

function toMessageParam(message: LlmMessage): MessageParam {
  switch (message.role) {
    case 'assistant':
      return message.toolCalls?.length
        ? {
            role: 'assistant',
            content: message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: 'assistant', content: message.content ?? '' };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return message;
  }
}

/**
 * The chat-completions request body. `max_tokens` (not `max_completion_tokens`) because it is
 * the field every OpenAI-compatible server understands.
 */
export function toCreateParams(request: LlmChatRequest): CreateParams {
  const params: CreateParams = { model: request.model, messages: request.messages.map(toMessageParam) };
  if (request.tools?.length) {
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.maxTokens !== undefined) params.max_tokens = request.maxTokens;
  if (request.responseSchema) {
    params.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: request.responseSchema, strict: false } };
  }
  return params;
}

/** The first choice, normalised; custom (non-function) tool calls are not something we offered, so they are dropped. */
export function fromCompletion(completion: OpenAI.Chat.Completions.ChatCompletion): LlmChatResponse | undefined {
  const choice = completion.choices?.[0];
  if (!choice) return undefined;
  const usage = completion.usage;
  return {
    model: completion.model,
    text: choice.message.content ?? null,
    toolCalls: (choice.message.tool_calls ?? []).flatMap((call) =>
      call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments ?? '' }] : [],
    ),
    usage: {
      promptTokens: usage?.prompt_tokens ?? 0,
      completionTokens: usage?.completion_tokens ?? 0,
      totalTokens: usage?.total_tokens ?? (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0),
    },
    finishReason: choice.finish_reason ?? undefined,
  };
}
