import type { components } from '#client';
import type { Problem } from '../api/api-error';

export type NodeType = components['schemas']['NodeType'];

export interface DraftNode {
  id: string;
  type: string;
  name?: string;
  config: Record<string, unknown>;
  inputs: Record<string, unknown>;
  position: { x: number; y: number };
}

export interface DraftEdge {
  source: string;
  sourceHandle?: string;
  target: string;
}

export interface Draft {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  nodes: DraftNode[];
  edges: DraftEdge[];
}

/** A fresh id for a node of `type`: the type's name and the first free number. */
export function freeId(draft: Draft, type: string): string {
  const base = type.replace(/[^A-Za-z0-9_]/g, '_');
  for (let n = 1; ; n++) if (!draft.nodes.some((node) => node.id === `${base}${n}`)) return `${base}${n}`;
}

export function addNode(draft: Draft, type: string, position: { x: number; y: number }): Draft {
  const node: DraftNode = { id: freeId(draft, type), type, config: {}, inputs: {}, position };
  return { ...draft, nodes: [...draft.nodes, node] };
}

export function connect(draft: Draft, edge: DraftEdge): Draft {
  const same = (other: DraftEdge) =>
    other.source === edge.source && other.target === edge.target && (other.sourceHandle ?? 'out') === (edge.sourceHandle ?? 'out');
  if (edge.source === edge.target || draft.edges.some(same)) return draft;
  return { ...draft, edges: [...draft.edges, edge] };
}

export function removeNode(draft: Draft, id: string): Draft {
  return {
    ...draft,
    nodes: draft.nodes.filter((node) => node.id !== id),
    edges: draft.edges.filter((edge) => edge.source !== id && edge.target !== id),
  };
}

export function updateNode(draft: Draft, id: string, change: Partial<DraftNode>): Draft {
  return { ...draft, nodes: draft.nodes.map((node) => (node.id === id ? { ...node, ...change } : node)) };
}

/** The body of POST /workflows, PUT /workflows/:id and POST /workflows/validate (positions stay in the page). */
export function definitionOf(draft: Draft) {
  return {
    name: draft.name,
    ...(draft.description ? { description: draft.description } : {}),
    ...(draft.inputSchema ? { inputSchema: draft.inputSchema } : {}),
    nodes: draft.nodes.map(({ id, type, name, config, inputs }) => ({ id, type, ...(name ? { name } : {}), config, inputs })),
    edges: draft.edges.map(({ source, sourceHandle, target }) => ({ source, target, ...(sourceHandle ? { sourceHandle } : {}) })),
  };
}

/** Problems of a save or a validation by node (`/nodes/<index>/…`), and those about the workflow as a whole. */
export function problemsByNode(draft: Draft, problems: Problem[]): { byNode: Record<string, string[]>; general: Problem[] } {
  const byNode: Record<string, string[]> = {};
  const general: Problem[] = [];
  for (const problem of problems) {
    const index = /^\/nodes\/(\d+)(\/|$)/.exec(problem.path)?.[1];
    const node = index === undefined ? undefined : draft.nodes[Number(index)];
    if (node) (byNode[node.id] ??= []).push(`${problem.code}: ${problem.message}`);
    else general.push(problem);
  }
  return { byNode, general };
}

/**
 * The handles a node can take, as its type describes them: `branch:<id>` stands for one handle per
 * configured branch (a condition's `config.branches[].id`); an end node takes none.
 */
export function outputHandles(node: DraftNode, types: NodeType[]): string[] {
  if (node.type === 'end') return [];
  const described = types.find((candidate) => candidate.type === node.type)?.handles ?? ['out'];
  const branches = Array.isArray(node.config.branches) ? (node.config.branches as { id?: unknown }[]) : [];
  return described.flatMap((handle) =>
    handle === 'branch:<id>'
      ? branches.filter((branch) => typeof branch?.id === 'string').map((branch) => `branch:${String(branch.id)}`)
      : [handle],
  );
}
