import dagre from '@dagrejs/dagre';

export interface GraphNodeInput {
  id: string;
}
export interface GraphEdgeInput {
  source: string;
  target: string;
}

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 64;

/** Top-to-bottom positions (dagre's layered layout): the graph reads like the run goes. */
export function layout(nodes: GraphNodeInput[], edges: GraphEdgeInput[]): Map<string, { x: number; y: number }> {
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 50 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const edge of edges) if (graph.hasNode(edge.source) && graph.hasNode(edge.target)) graph.setEdge(edge.source, edge.target);
  dagre.layout(graph);
  return new Map(
    nodes.map((node) => {
      const { x, y } = graph.node(node.id);
      return [node.id, { x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 }];
    }),
  );
}
