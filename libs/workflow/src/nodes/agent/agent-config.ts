import type { NodeDefinition, ToolCatalog, ValidationIssue } from '../../engine/types.js';
import { readModelConfig, type ModelConfig } from '../llm/model-config.js';

export interface AgentToolsetChoice {
  toolsetId: string;
  /** Only these tools of the toolset; all usable ones when absent. */
  tools?: string[];
}

export type AgentMode = 'function' | 'prompt';

export interface AgentConfig extends ModelConfig {
  toolsets: AgentToolsetChoice[];
  /** Model calls allowed before the node fails with AGENT_MAX_ITERATIONS. */
  maxIterations: number;
  mode: AgentMode;
}

export const DEFAULT_MAX_ITERATIONS = 10;
export const MAX_ITERATIONS_LIMIT = 100;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readToolsets(raw: unknown, path: string, issues: ValidationIssue[]): AgentToolsetChoice[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    issues.push({ path, code: 'INVALID_CONFIG', message: 'toolsets must be an array of {toolsetId, tools?}' });
    return [];
  }
  return raw.flatMap((item: unknown, index): AgentToolsetChoice[] => {
    const { toolsetId, tools } = isRecord(item) ? item : {};
    if (typeof toolsetId !== 'string' || toolsetId === '') {
      issues.push({ path: `${path}/${index}/toolsetId`, code: 'INVALID_CONFIG', message: 'each toolset needs a toolsetId' });
      return [];
    }
    if (tools !== undefined && (!Array.isArray(tools) || !tools.every((name) => typeof name === 'string'))) {
      issues.push({ path: `${path}/${index}/tools`, code: 'INVALID_CONFIG', message: 'tools must be an array of tool names' });
      return [{ toolsetId }];
    }
    return [tools === undefined ? { toolsetId } : { toolsetId, tools: tools as string[] }];
  });
}

/** Reads an agent node's config; `issues` lists every problem with its path. */
export function readAgentConfig(node: NodeDefinition, nodePath: string): { config: AgentConfig; issues: ValidationIssue[] } {
  const { config: model, issues } = readModelConfig(node, nodePath);
  const raw = node.config ?? {};
  const toolsets = readToolsets(raw.toolsets, `${nodePath}/config/toolsets`, issues);
  const { maxIterations = DEFAULT_MAX_ITERATIONS, mode = 'function' } = raw;
  if (!Number.isInteger(maxIterations) || (maxIterations as number) < 1 || (maxIterations as number) > MAX_ITERATIONS_LIMIT) {
    issues.push({
      path: `${nodePath}/config/maxIterations`,
      code: 'INVALID_CONFIG',
      message: `maxIterations must be an integer from 1 to ${MAX_ITERATIONS_LIMIT}`,
    });
  }
  if (mode !== 'function' && mode !== 'prompt') {
    issues.push({ path: `${nodePath}/config/mode`, code: 'INVALID_CONFIG', message: 'mode must be "function" or "prompt"' });
  }
  return {
    config: {
      ...model,
      toolsets,
      maxIterations: Number(maxIterations) || DEFAULT_MAX_ITERATIONS,
      mode: mode === 'prompt' ? 'prompt' : 'function',
    },
    issues,
  };
}

/** Save-time checks against the catalog: each toolset exists, each named tool exists and is usable. */
export async function validateAgentToolsets(config: AgentConfig, catalog: ToolCatalog, nodePath: string): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  for (const [index, choice] of config.toolsets.entries()) {
    const path = `${nodePath}/config/toolsets/${index}`;
    const tools = await catalog.listTools(choice.toolsetId);
    if (!tools) {
      issues.push({ path: `${path}/toolsetId`, code: 'UNKNOWN_TOOLSET', message: `toolset "${choice.toolsetId}" does not exist` });
      continue;
    }
    for (const [position, name] of (choice.tools ?? []).entries()) {
      const tool = tools.find((candidate) => candidate.name === name);
      if (!tool)
        issues.push({
          path: `${path}/tools/${position}`,
          code: 'UNKNOWN_TOOL',
          message: `toolset "${choice.toolsetId}" has no tool "${name}"`,
        });
      else if (!tool.usable) {
        issues.push({
          path: `${path}/tools/${position}`,
          code: 'TOOL_UNUSABLE',
          message: `tool "${name}" is unusable: ${tool.unusableReason ?? 'no reason given'}`,
        });
      }
    }
  }
  return issues;
}
