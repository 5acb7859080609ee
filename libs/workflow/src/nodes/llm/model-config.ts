import type { NodeDefinition, NodeExecutionContext, NodeReference, TypedField, ValidationIssue } from '../../engine/types.js';
import type { LlmChatRequest, LlmChatResponse, LlmMessage, LlmUsage } from './llm-client.js';
import { llmClientOf } from './llm-client.js';

/** What `llm` and `agent` share in their config: which model, and how it samples. */
export interface ModelConfig {
  providerId: string;
  model: string;
  temperature?: number;
  maxTokens?: number;
}

/** One model call as it appears in the node's log details. */
export interface ModelCallLog {
  model: string;
  usage: LlmUsage;
  durationMs: number;
  finishReason?: string;
}

function text(key: string, label: string, required: boolean, description: string): TypedField {
  return { key, label, description, valueType: 'string', required, schema: { type: 'string' } };
}

export const PROMPT_INPUTS: TypedField[] = [
  text('system', 'System', false, 'instructions sent as the system message'),
  text('prompt', 'Prompt', true, 'the user message'),
];

export const USAGE_OUTPUT: TypedField = {
  key: 'usage',
  label: 'usage',
  description: 'tokens used, summed over every model call: {promptTokens, completionTokens, totalTokens}',
  valueType: 'object',
  required: false,
  schema: { type: 'object' },
};

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** Reads the model part of a node's config; `issues` says what is wrong, with paths. */
/** The provider a model-calling node names, for `references`. */
export function providerReferences(node: NodeDefinition): NodeReference[] {
  const providerId = node.config?.providerId;
  return typeof providerId === 'string' ? [{ kind: 'provider', id: providerId, path: '/config/providerId' }] : [];
}

export function readModelConfig(node: NodeDefinition, nodePath: string): { config: ModelConfig; issues: ValidationIssue[] } {
  const raw = node.config ?? {};
  const issues: ValidationIssue[] = [];
  const issue = (key: string, message: string) => issues.push({ path: `${nodePath}/config/${key}`, code: 'INVALID_CONFIG', message });
  if (!nonEmpty(raw.providerId)) issue('providerId', `${node.type} needs config.providerId (a provider id)`);
  if (!nonEmpty(raw.model)) issue('model', `${node.type} needs config.model (a model name)`);
  const { temperature, maxTokens } = raw;
  if (temperature !== undefined && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= 2))) {
    issue('temperature', 'temperature must be a number from 0 to 2');
  }
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)) {
    issue('maxTokens', 'maxTokens must be a positive integer');
  }
  const config: ModelConfig = { providerId: String(raw.providerId ?? ''), model: String(raw.model ?? '') };
  if (typeof temperature === 'number') config.temperature = temperature;
  if (typeof maxTokens === 'number') config.maxTokens = maxTokens;
  return { config, issues };
}

/** The opening messages: the optional system message, then the prompt. */
export function openingMessages(inputs: Record<string, unknown>, system?: string): LlmMessage[] {
  const messages: LlmMessage[] = [];
  if (system !== undefined && system !== '') messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: String(inputs.prompt ?? '') });
  return messages;
}

type ModelRequest = Omit<LlmChatRequest, 'providerId' | 'model' | 'temperature' | 'maxTokens' | 'signal' | 'timeoutMs'>;

/** One model call with the node's model settings, its signal and time budget; timed into `log`. */
export async function callModel(
  context: NodeExecutionContext,
  config: ModelConfig,
  request: ModelRequest,
  log: ModelCallLog[],
): Promise<LlmChatResponse> {
  const { services, signal, callTimeoutMs } = context;
  const startedAt = services.clock.now();
  const response = await llmClientOf(services).chat({ ...config, ...request, signal, timeoutMs: callTimeoutMs });
  const entry: ModelCallLog = { model: response.model, usage: response.usage, durationMs: Math.max(0, services.clock.now() - startedAt) };
  if (response.finishReason !== undefined) entry.finishReason = response.finishReason;
  log.push(entry);
  return response;
}
