import { systemClock } from '../clock.js';
import type {
  Clock,
  EdgeDefinition,
  EngineServices,
  NodeDefinition,
  ToolCallRequest,
  ToolCallResult,
  ToolCatalog,
  ToolDescriptor,
  ToolInvoker,
  TypedField,
  ValueSource,
} from '../types.js';

/**
 * In-memory stand-ins for the engine's ports, for unit tests of the engine alone (the real MCP
 * path is tested in libs/mcp and test/). One toolset, `tools`, holds the fake tools.
 */
export const TOOLSET_ID = 'tools';

export type FakeToolHandler = (request: ToolCallRequest) => Promise<Partial<ToolCallResult>> | Partial<ToolCallResult>;

export interface FakeTool {
  inputs?: TypedField[];
  annotations?: Record<string, unknown>;
  usable?: boolean;
  handler?: FakeToolHandler;
}

export interface FakeToolbox {
  invoker: ToolInvoker;
  catalog: ToolCatalog;
  calls: ToolCallRequest[];
}

/** Resolves after `ms`, or rejects with the signal's reason, as a well-behaved MCP call does. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return systemClock.sleep(ms, signal);
}

export function field(key: string, valueType: TypedField['valueType'], required = false): TypedField {
  return { key, label: key, valueType, required, schema: true };
}

function descriptorOf(name: string, tool: FakeTool): ToolDescriptor {
  const inputs = tool.inputs ?? [];
  return {
    toolsetId: TOOLSET_ID,
    name,
    inputSchema: { type: 'object' },
    inputs,
    usable: tool.usable ?? true,
    unusableReason: tool.usable === false ? 'schema does not compile' : undefined,
    annotations: tool.annotations,
  };
}

export function createFakeToolbox(tools: Record<string, FakeTool>): FakeToolbox {
  const calls: ToolCallRequest[] = [];
  const catalog: ToolCatalog = {
    getTool: async (toolsetId, name) => (toolsetId === TOOLSET_ID && tools[name] ? descriptorOf(name, tools[name]) : undefined),
    listTools: async (toolsetId) =>
      toolsetId === TOOLSET_ID ? Object.entries(tools).map(([name, tool]) => descriptorOf(name, tool)) : undefined,
  };
  const invoker: ToolInvoker = {
    callTool: async (request) => {
      calls.push(request);
      const partial = (await tools[request.tool]?.handler?.(request)) ?? {};
      return { isError: false, text: '', content: [], transport: 'streamable-http', sessionReused: calls.length > 1, ...partial };
    },
  };
  return { invoker, catalog, calls };
}

/** The real clock, with every `sleep` duration recorded (retry backoff, timeouts, deadline). */
export function createRecordingClock(): Clock & { sleeps: number[] } {
  const sleeps: number[] = [];
  return { sleeps, now: systemClock.now, sleep: (ms, signal) => (sleeps.push(ms), systemClock.sleep(ms, signal)) };
}

export function fakeServices(toolbox: FakeToolbox, clock: Clock = systemClock): EngineServices {
  return { tools: toolbox.invoker, catalog: toolbox.catalog, clock };
}

export const literal = (value: unknown): ValueSource => ({ value });
export const ref = (text: string): ValueSource => ({ ref: text });
export const template = (text: string): ValueSource => ({ template: text });

export function startNodeDef(id = 'start'): NodeDefinition {
  return { id, type: 'start', config: {}, inputs: {} };
}

export function toolNode(
  id: string,
  tool: string,
  inputs: Record<string, ValueSource> = {},
  extra: Partial<NodeDefinition> = {},
): NodeDefinition {
  return { id, type: 'mcpTool', config: { toolsetId: TOOLSET_ID, tool }, inputs, ...extra };
}

export function endNodeDef(inputs: Record<string, ValueSource>, id = 'end'): NodeDefinition {
  return { id, type: 'end', config: {}, inputs };
}

export function edge(source: string, target: string, sourceHandle?: string): EdgeDefinition {
  return sourceHandle === undefined ? { source, target } : { source, target, sourceHandle };
}

/** Edges for a straight line a → b → c … */
export function chain(...ids: string[]): EdgeDefinition[] {
  return ids.slice(1).map((target, index) => edge(ids[index], target));
}
