import { compileSchema } from '#mcp';
import type { JsonSchema, NodeDefinition, NodeExecutor, TypedField, ValidationIssue } from '../engine/types.js';
import { valueTypeOfSchema } from '../engine/value-types.js';
import { MODEL_CONFIG_PROPERTIES } from './config-schemas.js';
import { failureWithDetails } from './llm/failure.js';
import { addUsage, ZERO_USAGE } from './llm/llm-client.js';
import {
  callModel,
  openingMessages,
  PROMPT_INPUTS,
  providerReferences,
  readModelConfig,
  USAGE_OUTPUT,
  type ModelCallLog,
} from './llm/model-config.js';
import { parseStructuredReply } from './llm/structured-reply.js';

function readResponseSchema(node: NodeDefinition): Record<string, unknown> | undefined {
  const schema = node.config?.responseSchema;
  return typeof schema === 'object' && schema !== null && !Array.isArray(schema) ? (schema as Record<string, unknown>) : undefined;
}

function validateConfig(node: NodeDefinition, nodePath: string): ValidationIssue[] {
  const issues = readModelConfig(node, nodePath).issues;
  const path = `${nodePath}/config/responseSchema`;
  const schema = readResponseSchema(node);
  if (node.config?.responseSchema !== undefined && !schema) {
    issues.push({ path, code: 'INVALID_CONFIG', message: 'responseSchema must be a JSON Schema object' });
  }
  const compiled = schema && compileSchema(schema);
  if (compiled && !compiled.ok)
    issues.push({ path, code: 'INVALID_CONFIG', message: `responseSchema does not compile: ${compiled.reason}` });
  return issues;
}

function outputs(responseSchema: JsonSchema | undefined): TypedField[] {
  return [
    { key: 'text', label: 'text', description: "the model's reply", valueType: 'string', required: false, schema: { type: 'string' } },
    {
      key: 'json',
      label: 'json',
      description: 'the reply parsed and validated against responseSchema (null without one)',
      valueType: valueTypeOfSchema(responseSchema),
      required: false,
      schema: responseSchema ?? true,
    },
    USAGE_OUTPUT,
  ];
}

/**
 * One model call: `system` and `prompt` in, `text` out. With `responseSchema` the provider is
 * asked for structured output and the reply must be JSON matching it (else LLM_RESPONSE_INVALID).
 */
export const llmNode: NodeExecutor = {
  type: 'llm',
  describeType: () => ({
    title: 'LLM',
    description: 'One model call: `system` and `prompt` in, `text` out; with `responseSchema` the reply is JSON matching it (`json`).',
    configSchema: {
      type: 'object',
      properties: { ...MODEL_CONFIG_PROPERTIES, responseSchema: { type: 'object', description: 'JSON Schema the reply must match' } },
      required: ['providerId', 'model'],
    },
    handles: ['out'],
    inputs: PROMPT_INPUTS,
  }),
  validate: async ({ node, nodePath }) => validateConfig(node, nodePath),
  describeInputs: async () => PROMPT_INPUTS,
  describeOutputs: async ({ node }) => outputs(readResponseSchema(node)),
  references: providerReferences,
  execute: async (context) => {
    const { node, inputs } = context;
    const { config } = readModelConfig(node, '');
    const responseSchema = readResponseSchema(node);
    const modelCalls: ModelCallLog[] = [];
    const details = () => ({
      providerId: config.providerId,
      model: config.model,
      usage: modelCalls.reduce((sum, call) => addUsage(sum, call.usage), ZERO_USAGE),
      toolCalls: [],
      modelCalls,
    });
    try {
      const system = typeof inputs.system === 'string' ? inputs.system : undefined;
      const response = await callModel(context, config, { messages: openingMessages(inputs, system), responseSchema }, modelCalls);
      const json = responseSchema ? parseStructuredReply(response.text, responseSchema) : null;
      const logged = details();
      return { outputs: { text: response.text ?? '', json, usage: logged.usage }, details: logged };
    } catch (thrown) {
      throw failureWithDetails(thrown, details());
    }
  },
};
