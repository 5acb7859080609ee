import { DEFAULT_HANDLE, START_NODE_TYPE } from './graph.js';
import type { NodeRegistry } from './registry.js';
import type { NodeDefinition, NodeReference, WorkflowDefinition } from './types.js';

/** What a definition uses, by kind: the ids each node type declares through `references`. */
export interface DefinitionReferences {
  toolsetIds: string[];
  providerIds: string[];
  workflowIds: string[];
}

/**
 * Every reference of every node, with its path in the definition (`/nodes/<index>/…`), the nodes
 * of sub-graphs (a map's body) included: `/nodes/1/config/body/nodes/1/config/workflowId`. A
 * `versionPath` stays relative to the top-level node that holds the reference
 * (`/config/body/nodes/1/config/version`).
 */
export function nodeReferencesOf(registry: NodeRegistry, nodes: readonly NodeDefinition[]): NodeReference[] {
  return nodes.flatMap((node, index) => ownAndInnerReferences(registry, node).map((reference) => withinNode(reference, `/nodes/${index}`)));
}

/** A node's references with paths relative to it: its own, then its sub-graphs' nodes'. */
function ownAndInnerReferences(registry: NodeRegistry, node: NodeDefinition): NodeReference[] {
  const executor = typeof node?.type === 'string' ? registry.get(node.type) : undefined;
  const own = executor?.references?.(node) ?? [];
  const inner = (executor?.subgraphs?.(node) ?? []).flatMap(({ path, definition }) =>
    (Array.isArray(definition.nodes) ? definition.nodes : []).flatMap((child, index) =>
      ownAndInnerReferences(registry, child).map((reference) => insideNode(reference, `${path}/nodes/${index}`)),
    ),
  );
  return inner.length > 0 ? [...own, ...inner] : own;
}

function withinNode(reference: NodeReference, prefix: string): NodeReference {
  return { ...reference, path: `${prefix}${reference.path}` };
}

/** A sub-graph node's reference as its holding node sees it: both pointers from that node. */
function insideNode(reference: NodeReference, prefix: string): NodeReference {
  const { versionPath } = reference;
  return { ...withinNode(reference, prefix), ...(versionPath !== undefined && { versionPath: `${prefix}${versionPath}` }) };
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
