import type { EdgeDefinition, NodeDefinition, WorkflowDefinition } from './types.js';

export const START_NODE_TYPE = 'start';
export const END_NODE_TYPE = 'end';
export const DEFAULT_HANDLE = 'out';
export const ERROR_HANDLE = 'error';

export function handleOf(edge: EdgeDefinition): string {
  return edge.sourceHandle ?? DEFAULT_HANDLE;
}

/**
 * An index over a definition: nodes by id, incoming/outgoing edge indexes by node id.
 * Edges whose ends name no node are left out of the adjacency (validation reports them).
 * The first node with a given id wins; duplicates are a validation error.
 */
export class WorkflowGraph {
  readonly nodes: readonly NodeDefinition[];
  readonly edges: readonly EdgeDefinition[];
  private readonly byId = new Map<string, NodeDefinition>();
  private readonly indexById = new Map<string, number>();
  private readonly incomingEdges = new Map<string, number[]>();
  private readonly outgoingEdges = new Map<string, number[]>();
  private readonly ancestorsCache = new Map<string, ReadonlySet<string>>();

  constructor(definition: Pick<WorkflowDefinition, 'nodes' | 'edges'>) {
    this.nodes = definition.nodes;
    this.edges = definition.edges;
    definition.nodes.forEach((node, index) => {
      if (this.byId.has(node.id)) return;
      this.byId.set(node.id, node);
      this.indexById.set(node.id, index);
      this.incomingEdges.set(node.id, []);
      this.outgoingEdges.set(node.id, []);
    });
    definition.edges.forEach((edge, index) => {
      if (!this.byId.has(edge.source) || !this.byId.has(edge.target)) return;
      this.outgoingEdges.get(edge.source)?.push(index);
      this.incomingEdges.get(edge.target)?.push(index);
    });
  }

  node(id: string): NodeDefinition | undefined {
    return this.byId.get(id);
  }

  /** Index of the node in `definition.nodes` (for paths such as `/nodes/3/inputs/x`). */
  indexOf(id: string): number {
    return this.indexById.get(id) ?? -1;
  }

  nodeIds(): IterableIterator<string> {
    return this.byId.keys();
  }

  incoming(id: string): readonly number[] {
    return this.incomingEdges.get(id) ?? [];
  }

  outgoing(id: string): readonly number[] {
    return this.outgoingEdges.get(id) ?? [];
  }

  startNodes(): NodeDefinition[] {
    return [...this.byId.values()].filter((node) => node.type === START_NODE_TYPE);
  }

  /** Every node from which `id` can be reached (its upstream set); cycles are tolerated. */
  ancestors(id: string): ReadonlySet<string> {
    let ancestors = this.ancestorsCache.get(id);
    if (!ancestors) {
      ancestors = this.walk(id, (current) => this.incoming(current).map((edgeIndex) => this.edges[edgeIndex].source));
      this.ancestorsCache.set(id, ancestors);
    }
    return ancestors;
  }

  /** Nodes reachable from `rootId` following edges forward, the root included. */
  reachableFrom(rootId: string): Set<string> {
    return this.walk(rootId, (current) => this.outgoing(current).map((edgeIndex) => this.edges[edgeIndex].target)).add(rootId);
  }

  /** Nodes reached from `rootId` through `next` (the root only if a cycle leads back to it). */
  private walk(rootId: string, next: (id: string) => string[]): Set<string> {
    const seen = new Set<string>();
    const queue = [rootId];
    while (queue.length > 0) {
      for (const neighbour of next(queue.pop() as string)) {
        if (!seen.has(neighbour)) {
          seen.add(neighbour);
          queue.push(neighbour);
        }
      }
    }
    return seen;
  }

  /** Groups of nodes that form cycles (strongly connected components of more than one node, or a self-loop). */
  cycles(): string[][] {
    return findCycles([...this.byId.keys()], (id) => this.outgoing(id).map((edgeIndex) => this.edges[edgeIndex].target));
  }
}

/** Tarjan's algorithm, iterative so that a long chain cannot overflow the stack. */
function findCycles(ids: string[], successors: (id: string) => string[]): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let counter = 0;
  for (const root of ids) {
    if (index.has(root)) continue;
    const work: { id: string; next: string[] }[] = [];
    const visit = (id: string): void => {
      index.set(id, counter);
      lowLink.set(id, counter);
      counter += 1;
      stack.push(id);
      onStack.add(id);
      work.push({ id, next: successors(id) });
    };
    visit(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const successor = frame.next.shift();
      if (successor !== undefined) {
        if (!index.has(successor)) visit(successor);
        else if (onStack.has(successor)) lowLink.set(frame.id, Math.min(lowLink.get(frame.id) as number, index.get(successor) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLink.set(parent.id, Math.min(lowLink.get(parent.id) as number, lowLink.get(frame.id) as number));
      if (lowLink.get(frame.id) !== index.get(frame.id)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.id);
      const selfLoop = component.length === 1 && successors(frame.id).includes(frame.id);
      if (component.length > 1 || selfLoop) cycles.push(component.reverse());
    }
  }
  return cycles;
}
