import { handleOf, type WorkflowGraph } from './graph.js';

export type EdgeState = 'waiting' | 'active' | 'skipped';

/** Whether a node can be decided: still `waiting` on an edge, `ready` to run, or to be `skipped`. */
export type Readiness = 'waiting' | 'ready' | 'skipped';

/**
 * The edge-status model: every edge starts waiting and is resolved when its source finishes,
 * active when the source activated the edge's handle, skipped otherwise.
 */
export class EdgeStates {
  private readonly states: EdgeState[];

  constructor(private readonly graph: WorkflowGraph) {
    this.states = graph.edges.map(() => 'waiting');
  }

  /** Resolves the outgoing edges of a finished node; returns the targets to look at again. */
  resolveOutgoing(nodeId: string, activeHandles: readonly string[]): string[] {
    const targets: string[] = [];
    for (const edgeIndex of this.graph.outgoing(nodeId)) {
      const edge = this.graph.edges[edgeIndex];
      this.states[edgeIndex] = activeHandles.includes(handleOf(edge)) ? 'active' : 'skipped';
      targets.push(edge.target);
    }
    return targets;
  }

  /**
   * A node with no incoming edge is ready (only the start node; validation rejects others).
   * Otherwise: any edge waiting → waiting; at least one active → ready; all skipped → skipped.
   */
  readiness(nodeId: string): Readiness {
    let anyActive = false;
    const incoming = this.graph.incoming(nodeId);
    for (const edgeIndex of incoming) {
      const state = this.states[edgeIndex];
      if (state === 'waiting') return 'waiting';
      if (state === 'active') anyActive = true;
    }
    return anyActive || incoming.length === 0 ? 'ready' : 'skipped';
  }

  stateOf(edgeIndex: number): EdgeState {
    return this.states[edgeIndex];
  }
}
