import { DEFAULT_HANDLE, START_NODE_TYPE } from './graph.js';
import type { NodeRegistry } from './registry.js';
import type { NodeDefinition, NodeReference, WorkflowDefinition } from './types.js';

/** What a definition uses, by kind: the ids each node type declares through `references`. */
export interface DefinitionReferences {
  toolsetIds: string[];
  providerIds: string[];
  workflowIds: string[];
}

/** Every reference of every node, with its path in the definition (`/nodes/<index>/…`). */
export function nodeReferencesOf(registry: NodeRegistry, nodes: readonly NodeDefinition[]): NodeReference[] {
  return nodes.flatMap((node, index) =>
    (registry.get(node.type)?.references?.(node) ?? []).map((reference) => ({ ...reference, path: `/nodes/${index}${reference.path}` })),
  );
}

export function referencesOf(registry: NodeRegistry, nodes: readonly NodeDefinition[]): DefinitionReferences {
  const ids = { toolset: new Set<string>(), provider: new Set<string>(), workflow: new Set<string>() };
  for (const { kind, id } of nodeReferencesOf(registry, nodes)) ids[kind].add(id);
  return { toolsetIds: [...ids.toolset], providerIds: [...ids.provider], workflowIds: [...ids.workflow] };
}

/**
 * Toolsets to connect to as soon as a run is claimed: those the nodes declare (`connectsAhead`)
 * among the nodes that run whenever the workflow runs and no node fails — reached from `start`
 * along default (`out`) edges only, so no branch that may not be taken.
 */
export function toolsetsToConnectAhead(registry: NodeRegistry, workflow: WorkflowDefinition): string[] {
  const nodes = new Map(workflow.nodes.map((node) => [node.id, node]));
  const reached = new Set(workflow.nodes.filter((node) => node.type === START_NODE_TYPE).map((node) => node.id));
  for (const id of reached) {
    for (const edge of workflow.edges) {
      if (edge.source === id && (edge.sourceHandle ?? DEFAULT_HANDLE) === DEFAULT_HANDLE && nodes.has(edge.target))
        reached.add(edge.target);
    }
  }
  const toolsets = new Set<string>();
  for (const id of reached) {
    const node = nodes.get(id);
    for (const toolsetId of (node && registry.get(node.type)?.connectsAhead?.(node)) ?? []) toolsets.add(toolsetId);
  }
  return [...toolsets];
}
