import { McpErrorCode } from '#mcp';
import { ENGINE_ERROR_CODES, EngineError } from '../engine/errors.js';
import type {
  ElicitationPolicy,
  JsonSchema,
  NodeDefinition,
  NodeExecutor,
  NodeValidationContext,
  ToolCallResult,
  ToolDescriptor,
  TypedField,
  ValidationIssue,
} from '../engine/types.js';

interface ToolRef {
  toolsetId: string;
  tool: string;
}

function readToolRef(node: NodeDefinition): ToolRef | undefined {
  const { toolsetId, tool } = node.config ?? {};
  return typeof toolsetId === 'string' && toolsetId !== '' && typeof tool === 'string' && tool !== '' ? { toolsetId, tool } : undefined;
}

/** `config.elicitation`: undefined when absent, 'invalid' when it is not one of the policies. */
function readElicitation(node: NodeDefinition): ElicitationPolicy | 'invalid' | undefined {
  const value: unknown = node.config?.elicitation;
  if (value === undefined || value === 'defaults' || value === 'decline' || value === 'pause') return value;
  const answer = typeof value === 'object' && value !== null ? (value as { answer?: unknown }).answer : undefined;
  const keys = typeof value === 'object' && value !== null ? Object.keys(value) : [];
  return typeof answer === 'object' && answer !== null && !Array.isArray(answer) && keys.length === 1
    ? { answer: answer as Record<string, unknown> }
    : 'invalid';
}

function output(key: string, valueType: TypedField['valueType'], description: string): TypedField {
  return { key, label: key, description, valueType, required: false, schema: true };
}

const OUTPUTS: TypedField[] = [
  output('result', 'any', 'structuredContent, else the text parsed as JSON when it parses, else the text'),
  output('text', 'string', 'the text content blocks, joined'),
  output('content', 'array<any>', 'the raw content blocks'),
  output('isError', 'boolean', 'whether the tool reported an error'),
];

const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    toolsetId: { type: 'string', minLength: 1, description: 'a toolset id (POST /toolsets)' },
    tool: { type: 'string', minLength: 1, description: 'the tool name' },
    elicitation: {
      description: 'how a request for input during the call is answered (default decline; pause waits for POST /runs/{id}/input)',
      oneOf: [
        { enum: ['defaults', 'decline', 'pause'] },
        { type: 'object', properties: { answer: { type: 'object' } }, required: ['answer'], additionalProperties: false },
      ],
    },
  },
  required: ['toolsetId', 'tool'],
};

function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function usableTool({ node, catalog }: NodeValidationContext): Promise<ToolDescriptor | undefined> {
  const ref = readToolRef(node);
  if (!ref) return undefined;
  const descriptor = await catalog.getTool(ref.toolsetId, ref.tool);
  return descriptor?.usable ? descriptor : undefined;
}

async function validateToolRef(context: NodeValidationContext): Promise<ValidationIssue[]> {
  const { node, nodePath } = context;
  if (readElicitation(node) === 'invalid') {
    const message = 'elicitation must be "defaults", "decline", "pause" or {"answer": {…}}';
    return [{ path: `${nodePath}/config/elicitation`, code: 'INVALID_CONFIG', message }, ...(await validateToolRefOnly(context))];
  }
  return validateToolRefOnly(context);
}

async function validateToolRefOnly({ node, nodePath, catalog }: NodeValidationContext): Promise<ValidationIssue[]> {
  const ref = readToolRef(node);
  if (!ref) return [{ path: `${nodePath}/config`, code: 'INVALID_CONFIG', message: 'mcpTool needs config {toolsetId, tool}' }];
  const tools = await catalog.listTools(ref.toolsetId);
  if (!tools)
    return [{ path: `${nodePath}/config/toolsetId`, code: 'UNKNOWN_TOOLSET', message: `toolset "${ref.toolsetId}" does not exist` }];
  const descriptor = tools.find((candidate) => candidate.name === ref.tool);
  if (!descriptor)
    return [{ path: `${nodePath}/config/tool`, code: 'UNKNOWN_TOOL', message: `toolset "${ref.toolsetId}" has no tool "${ref.tool}"` }];
  if (!descriptor.usable) {
    return [
      {
        path: `${nodePath}/config/tool`,
        code: 'TOOL_UNUSABLE',
        message: `tool "${ref.tool}" is unusable: ${descriptor.unusableReason ?? 'no reason given'}`,
      },
    ];
  }
  return [];
}

function toOutputs(result: ToolCallResult): Record<string, unknown> {
  const structured = result.structuredContent;
  return {
    result: structured !== undefined && structured !== null ? structured : parseJsonOrText(result.text),
    text: result.text,
    content: result.content,
    isError: result.isError,
  };
}

/** Calls one tool of an MCP toolset; inputs are the tool's typed inputs (from the catalog). */
export const mcpToolNode: NodeExecutor = {
  type: 'mcpTool',
  describeType: () => ({
    title: 'MCP tool',
    description: "Calls one tool of an MCP toolset; its inputs are the tool's typed inputs (GET /toolsets/{id}).",
    configSchema: CONFIG_SCHEMA,
    handles: ['out'],
    outputs: OUTPUTS,
  }),
  validate: validateToolRef,
  describeInputs: async (context) => (await usableTool(context))?.inputs,
  describeOutputs: async () => OUTPUTS,
  references: (node) =>
    typeof node.config?.toolsetId === 'string' ? [{ kind: 'toolset', id: node.config.toolsetId, path: '/config/toolsetId' }] : [],
  // Its one toolset surely gets a call when the node runs, so a session opened early is never wasted.
  connectsAhead: (node) => (typeof node.config?.toolsetId === 'string' ? [node.config.toolsetId] : []),
  execute: async ({ node, inputs, signal, services, callTimeoutMs }) => {
    const ref = readToolRef(node);
    const descriptor = ref && (await services.catalog.getTool(ref.toolsetId, ref.tool));
    if (!ref || !descriptor) {
      throw new EngineError(ENGINE_ERROR_CODES.unknownTool, `tool ${JSON.stringify(node.config)} is not in the catalog`);
    }
    // A sent call may be sent again only if the node retries anyway or the tool says repeats are harmless.
    const mayRepeat = (node.retry?.maxAttempts ?? 1) > 1 || descriptor.annotations?.idempotentHint === true;
    const elicitation = readElicitation(node);
    const policy = elicitation === 'invalid' ? undefined : elicitation;
    const result = await services.tools.callTool({
      ...ref,
      arguments: inputs,
      signal,
      timeoutMs: callTimeoutMs,
      mayRepeat,
      nodeId: node.id,
      ...(policy && { elicitation: policy }),
    });
    const details = {
      ...ref,
      transport: result.transport,
      sessionReused: result.sessionReused,
      isError: result.isError,
      ...(result.elicitations?.length ? { elicitations: result.elicitations } : {}),
    };
    if (result.isError) {
      const message = result.text.trim() === '' ? `tool "${ref.tool}" reported an error` : result.text.slice(0, 1000);
      throw new EngineError(McpErrorCode.TOOL_ERROR, message, { details });
    }
    return { outputs: toOutputs(result), details };
  },
};
