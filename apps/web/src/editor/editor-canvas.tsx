import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeChange,
  type EdgeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { connect, outputHandles, removeNode, updateNode, type Draft, type DraftNode, type NodeType } from './workflow-draft';

interface EditData extends Record<string, unknown> {
  label: string;
  type: string;
  handles: string[];
  problems: string[];
}

/** A node on the canvas: one input handle on top, one output handle per handle its type can take. */
function EditNode({ data, selected }: NodeProps<Node<EditData>>) {
  return (
    <div className={`step ${selected ? 'selected' : ''} ${data.problems.length ? 'state-failed' : ''}`}>
      {data.type !== 'start' && <Handle type="target" position={Position.Top} />}
      <div className="step-title">{data.label}</div>
      <div className="step-meta">{data.type}</div>
      {data.problems.map((problem) => (
        <div key={problem} className="step-error" data-testid="node-problem">
          {problem}
        </div>
      ))}
      {data.handles.map((handle, index) => (
        <Handle
          key={handle}
          id={handle}
          type="source"
          position={Position.Bottom}
          style={{ left: `${((index + 1) * 100) / (data.handles.length + 1)}%` }}
          title={handle}
        />
      ))}
    </div>
  );
}

const nodeTypes = { edit: EditNode };

interface Props {
  draft: Draft;
  types: NodeType[];
  problems: Record<string, string[]>;
  selected?: string;
  onChange(draft: Draft): void;
  onSelect(id: string | undefined): void;
}

/** The editable graph: drag nodes, drag from an output handle to a node to connect, Delete removes. */
export function EditorCanvas({ draft, types, problems, selected, onChange, onSelect }: Props) {
  const handlesOf = (node: DraftNode | undefined) => (node ? outputHandles(node, types) : []);
  const nodes: Node<EditData>[] = draft.nodes.map((node) => ({
    id: node.id,
    type: 'edit',
    position: node.position,
    selected: node.id === selected,
    ariaLabel: `${node.id} (${node.type})`,
    data: { label: node.name ?? node.id, type: node.type, handles: handlesOf(node), problems: problems[node.id] ?? [] },
  }));
  const edges: Edge[] = draft.edges.map((edge, index) => ({
    id: String(index),
    source: edge.source,
    target: edge.target,
    sourceHandle: edge.sourceHandle ?? (handlesOf(draft.nodes.find((node) => node.id === edge.source))[0] || null),
    label: edge.sourceHandle && edge.sourceHandle !== 'out' ? edge.sourceHandle : undefined,
    markerEnd: { type: MarkerType.ArrowClosed },
  }));

  const onNodesChange = (changes: NodeChange<Node<EditData>>[]) => {
    let next = draft;
    for (const change of changes) {
      if (change.type === 'position' && change.position) next = updateNode(next, change.id, { position: change.position });
      if (change.type === 'remove') next = removeNode(next, change.id);
      if (change.type === 'select' && change.selected) onSelect(change.id);
    }
    if (next !== draft) onChange(next);
  };
  const onEdgesChange = (changes: EdgeChange[]) => {
    const removed = new Set(changes.filter((change) => change.type === 'remove').map((change) => Number(change.id)));
    if (removed.size) onChange({ ...draft, edges: draft.edges.filter((_, index) => !removed.has(index)) });
  };

  return (
    <div className="graph" data-testid="editor-canvas">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={(connection) =>
          onChange(
            connect(draft, {
              source: connection.source,
              target: connection.target,
              ...(connection.sourceHandle && connection.sourceHandle !== 'out' ? { sourceHandle: connection.sourceHandle } : {}),
            }),
          )
        }
        onPaneClick={() => onSelect(undefined)}
        deleteKeyCode={['Delete', 'Backspace']}
        fitView
        fitViewOptions={{ maxZoom: 1.2 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background />
        <Controls />
      </ReactFlow>
    </div>
  );
}
