import { ENGINE_ERROR_CODES, EngineError } from '../../engine/errors.js';
import type { JsonSchema, ToolCatalog } from '../../engine/types.js';
import type { AgentToolsetChoice } from './agent-config.js';
import { assignFunctionNames } from './tool-names.js';

/** One MCP tool offered to the model, with the function name it goes by. */
export interface AgentTool {
  functionName: string;
  toolsetId: string;
  tool: string;
  description?: string;
  inputSchema: JsonSchema;
  /** The tool says a repeated call is harmless (idempotentHint): the MCP layer may resend it. */
  idempotent: boolean;
}

export interface Toolbox {
  tools: AgentTool[];
  byFunctionName(name: string): AgentTool | undefined;
  /** Prompt mode: the model names the server (toolset id) and the MCP tool name. */
  byServerAndTool(server: string, tool: string): AgentTool | undefined;
}

/**
 * The usable tools of the chosen toolsets (all, or the named ones), named for the model.
 * A toolset or a named tool that has disappeared since the workflow was saved fails the node:
 * the agent would otherwise run silently without a tool its author counted on.
 */
export async function loadToolbox(catalog: ToolCatalog, choices: readonly AgentToolsetChoice[]): Promise<Toolbox> {
  const picked: Omit<AgentTool, 'functionName'>[] = [];
  for (const choice of choices) {
    const descriptors = await catalog.listTools(choice.toolsetId);
    if (!descriptors) throw new EngineError(ENGINE_ERROR_CODES.unknownToolset, `toolset "${choice.toolsetId}" does not exist`);
    const wanted = choice.tools ? new Set(choice.tools) : undefined;
    for (const name of wanted ?? []) {
      if (!descriptors.some((descriptor) => descriptor.name === name && descriptor.usable)) {
        throw new EngineError(ENGINE_ERROR_CODES.unknownTool, `toolset "${choice.toolsetId}" has no usable tool "${name}"`);
      }
    }
    for (const descriptor of descriptors) {
      if (!descriptor.usable || (wanted && !wanted.has(descriptor.name))) continue;
      picked.push({
        toolsetId: choice.toolsetId,
        tool: descriptor.name,
        description: descriptor.description,
        inputSchema: descriptor.inputSchema,
        idempotent: descriptor.annotations?.idempotentHint === true,
      });
    }
  }
  const names = assignFunctionNames(picked.map((tool) => tool.tool));
  const tools = picked.map((tool, index) => ({ ...tool, functionName: names[index] }));
  const byName = new Map(tools.map((tool) => [tool.functionName, tool]));
  return {
    tools,
    byFunctionName: (name) => byName.get(name),
    byServerAndTool: (server, tool) => tools.find((candidate) => candidate.toolsetId === server && candidate.tool === tool),
  };
}
