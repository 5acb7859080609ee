import { useMemo } from 'react';
import { Background, Controls, Handle, MarkerType, Position, ReactFlow, type Edge, type Node, type NodeProps } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { layout } from './graph-layout';
import { formatDuration } from './format';

export type NodeState = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'waiting' | 'canceled';

export interface NodeStatus {
  state: NodeState;
  durationMs?: number;
  errorCode?: string;
}

interface StepData extends Record<string, unknown> {
  label: string;
  type: string;
  status?: NodeStatus;
  problems?: string[];
}

function StepNode({ data, selected }: NodeProps<Node<StepData>>) {
  const state = data.status?.state;
  return (
    <div className={`step ${state ? `state-${state}` : ''} ${selected ? 'selected' : ''} ${data.problems?.length ? 'has-problems' : ''}`}>
      <Handle type="target" position={Position.Top} />
      <div className="step-title">{data.label}</div>
      <div className="step-meta">
        <span>{data.type}</span>
        {state && (
          <span className="step-state">
            {state}
            {data.status?.durationMs !== undefined && ` · ${formatDuration(data.status.durationMs)}`}
          </span>
        )}
      </div>
      {data.status?.errorCode && <div className="step-error">{data.status.errorCode}</div>}
      {data.problems?.map((problem) => (
        <div key={problem} className="step-error">
          {problem}
        </div>
      ))}
      <Handle type="source" position={Position.Bottom} />
    </div>
  );
}

const nodeTypes = { step: StepNode };

interface Props {
  nodes: { id: string; type: string; name?: unknown }[];
  edges: { source: string; target: string; sourceHandle?: unknown }[];
  statuses?: Record<string, NodeStatus>;
  problems?: Record<string, string[]>;
  selected?: string;
  onSelect?(nodeId: string): void;
}

/** A workflow as a read-only graph: one box per node, coloured by its state in a run. */
export function WorkflowGraph({ nodes, edges, statuses = {}, problems = {}, selected, onSelect }: Props) {
  const positions = useMemo(() => layout(nodes, edges), [nodes, edges]);
  const flowNodes: Node<StepData>[] = nodes.map((node) => ({
    id: node.id,
    type: 'step',
    position: positions.get(node.id) ?? { x: 0, y: 0 },
    selected: node.id === selected,
    ariaLabel: `${typeof node.name === 'string' ? node.name : node.id} (${node.type})${statuses[node.id] ? `: ${statuses[node.id].state}` : ''}`,
    data: {
      label: typeof node.name === 'string' ? node.name : node.id,
      type: node.type,
      status: statuses[node.id],
      problems: problems[node.id],
    },
  }));
  const flowEdges: Edge[] = edges.map((edge, index) => ({
    id: `${edge.source}-${edge.target}-${index}`,
    source: edge.source,
    target: edge.target,
    label: typeof edge.sourceHandle === 'string' && edge.sourceHandle !== 'out' ? edge.sourceHandle : undefined,
    animated: statuses[edge.source]?.state === 'succeeded' && statuses[edge.target]?.state === 'running',
    markerEnd: { type: MarkerType.ArrowClosed },
  }));
  return (
    <div className="graph readonly" data-testid="workflow-graph">
      <ReactFlow
        nodes={flowNodes}
        edges={flowEdges}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        fitView
        fitViewOptions={{ maxZoom: 1.2 }}
        proOptions={{ hideAttribution: true }}
        onNodeClick={(_, node) => onSelect?.(node.id)}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
