import { createNodeRegistry, type NodeRegistry } from '../engine/registry.js';
import type { NodeExecutor } from '../engine/types.js';
import { codeNode } from './code.js';
import { approvalNode } from './approval.js';
import { conditionNode } from './condition.js';
import { endNode } from './end.js';
import { mapNode } from './map.js';
import { httpNode } from './http.js';
import { mcpToolNode } from './mcp-tool.js';
import { setNode } from './set.js';
import { startNode } from './start.js';
import { templateNode } from './template.js';
import { waitNode } from './wait.js';
import { workflowNode } from './workflow.js';

/** The node types every deployment has. */
export const builtInNodeExecutors: readonly NodeExecutor[] = [
  startNode,
  mcpToolNode,
  conditionNode,
  templateNode,
  setNode,
  codeNode,
  approvalNode,
  waitNode,
  mapNode,
  workflowNode,
  httpNode,
  endNode,
];

/** A registry with the built-in types; hosts register more (`llm`, `agent`) with `register`. */
export function createDefaultNodeRegistry(): NodeRegistry {
  return createNodeRegistry(builtInNodeExecutors);
}
