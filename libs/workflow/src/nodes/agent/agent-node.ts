import type { NodeDefinition, NodeExecutor, NodeReference, TypedField } from '../../engine/types.js';
import { failureWithDetails } from '../llm/failure.js';
import { addUsage, ZERO_USAGE } from '../llm/llm-client.js';
import { openingMessages, PROMPT_INPUTS, providerReferences, USAGE_OUTPUT } from '../llm/model-config.js';
import { MODEL_CONFIG_PROPERTIES } from '../config-schemas.js';
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS_LIMIT, readAgentConfig, validateAgentToolsets } from './agent-config.js';
import { runAgentLoop, type AgentTrace } from './agent-loop.js';
import { functionCallingProtocol } from './function-mode.js';
import { promptProtocol } from './prompt-mode.js';
import { loadToolbox } from './toolbox.js';

const OUTPUTS: TypedField[] = [
  { key: 'text', label: 'text', description: "the model's final answer", valueType: 'string', required: false, schema: { type: 'string' } },
  {
    key: 'toolCalls',
    label: 'toolCalls',
    description:
      'every tool call made: {id, iteration, name, toolsetId, tool, arguments, isError, result?, error?, durationMs, sessionReused}',
    valueType: 'array<object>',
    required: false,
    schema: { type: 'array', items: { type: 'object' } },
  },
  USAGE_OUTPUT,
];

/** Log details: per model call (model, usage, duration) and per tool call (tool, redacted arguments, isError, duration, session reuse). */
function detailsOf(config: { providerId: string; model: string; mode: string }, trace: AgentTrace): Record<string, unknown> {
  return {
    providerId: config.providerId,
    model: config.model,
    mode: config.mode,
    iterations: trace.modelCalls.length,
    usage: trace.modelCalls.reduce((sum, call) => addUsage(sum, call.usage), ZERO_USAGE),
    modelCalls: trace.modelCalls,
    toolCalls: trace.toolCalls.map((outcome) => outcome.record),
  };
}

/**
 * A model that decides which MCP tools to call: the chosen toolsets' usable tools are offered
 * (as function tools, or in the system prompt with `mode: "prompt"`), and the loop runs until
 * the model answers without asking for a tool or `maxIterations` model calls are spent.
 */
/** Its provider and every toolset it may call (`config.toolsets[].toolsetId`). */
function agentReferences(node: NodeDefinition): NodeReference[] {
  const toolsets = Array.isArray(node.config?.toolsets) ? node.config.toolsets : [];
  const toolsetReferences = toolsets.flatMap((entry: unknown, index): NodeReference[] => {
    const toolsetId = (entry as { toolsetId?: unknown } | null)?.toolsetId;
    return typeof toolsetId === 'string' ? [{ kind: 'toolset', id: toolsetId, path: `/config/toolsets/${index}/toolsetId` }] : [];
  });
  return [...providerReferences(node), ...toolsetReferences];
}

export const agentNode: NodeExecutor = {
  type: 'agent',
  describeType: () => ({
    title: 'Agent',
    description: 'A model that decides which MCP tools to call, in a loop, until it answers without a tool call or maxIterations is spent.',
    configSchema: {
      type: 'object',
      properties: {
        ...MODEL_CONFIG_PROPERTIES,
        toolsets: {
          type: 'array',
          items: {
            type: 'object',
            properties: { toolsetId: { type: 'string', minLength: 1 }, tools: { type: 'array', items: { type: 'string' } } },
            required: ['toolsetId'],
          },
        },
        maxIterations: { type: 'integer', minimum: 1, maximum: MAX_ITERATIONS_LIMIT, default: DEFAULT_MAX_ITERATIONS },
        mode: { enum: ['function', 'prompt'], default: 'function' },
      },
      required: ['providerId', 'model'],
    },
    handles: ['out'],
    inputs: PROMPT_INPUTS,
    outputs: OUTPUTS,
  }),
  validate: async ({ node, nodePath, catalog }) => {
    const { config, issues } = readAgentConfig(node, nodePath);
    return [...issues, ...(await validateAgentToolsets(config, catalog, nodePath))];
  },
  describeInputs: async () => PROMPT_INPUTS,
  describeOutputs: async () => OUTPUTS,
  references: agentReferences,
  execute: async (context) => {
    const { config } = readAgentConfig(context.node, '');
    const trace: AgentTrace = { modelCalls: [], toolCalls: [] };
    try {
      const toolbox = await loadToolbox(context.services.catalog, config.toolsets);
      const protocol = config.mode === 'prompt' ? promptProtocol(toolbox) : functionCallingProtocol(toolbox);
      const system = protocol.systemPrompt(typeof context.inputs.system === 'string' ? context.inputs.system : undefined);
      const text = await runAgentLoop(context, config, protocol, openingMessages(context.inputs, system), trace);
      const details = detailsOf(config, trace);
      const toolCalls = trace.toolCalls.map(({ record, result }) => (result === undefined ? record : { ...record, result }));
      return { outputs: { text, toolCalls, usage: details.usage }, details };
    } catch (thrown) {
      throw failureWithDetails(thrown, detailsOf(config, trace));
    }
  },
};
