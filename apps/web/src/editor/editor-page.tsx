import { useEffect, useState } from 'react';
import { useLocation } from 'wouter';
import { useApi } from '../api/api-context';
import { ApiError, unwrap, type Problem } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { layout } from '../components/graph-layout';
import { useLoad } from '../components/use-load';
import { ConnectForm } from './connect-form';
import { EditorCanvas } from './editor-canvas';
import { InputSchemaField } from './input-schema-field';
import { NodePanel } from './node-panel';
import { valueTypeOfSchema, type RefOption } from './value-sources';
import { addNode, definitionOf, problemsByNode, removeNode, updateNode, type Draft, type NodeType } from './workflow-draft';

const NEW_DRAFT: Draft = {
  name: 'New workflow',
  nodes: [
    { id: 'start', type: 'start', config: {}, inputs: {}, position: { x: 0, y: 0 } },
    { id: 'end', type: 'end', config: {}, inputs: {}, position: { x: 0, y: 300 } },
  ],
  edges: [],
};

/** Edits a workflow on the canvas (or a new one): palette from GET /node-types, save as a new version, problems on the nodes. */
export function EditorPage({ id }: { id?: string }) {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState<Draft>();
  const [selected, setSelected] = useState<string>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState<string>();

  const types = useLoad(() => unwrap(client.GET('/node-types')), []);
  const toolsets = useLoad(() => unwrap(client.GET('/toolsets', { params: { query: { limit: 200 } } })), []);
  const workflow = useLoad(async () => (id ? unwrap(client.GET('/workflows/{id}', { params: { path: { id } } })) : undefined), [id]);

  useEffect(() => {
    if (!id) return setDraft(NEW_DRAFT);
    const loaded = workflow.data;
    if (!loaded) return;
    const positions = layout(loaded.nodes, loaded.edges);
    setDraft({
      name: loaded.name,
      description: loaded.description ?? undefined,
      inputSchema: loaded.inputSchema ?? undefined,
      nodes: loaded.nodes.map((node) => ({
        id: node.id,
        type: node.type,
        name: typeof node.name === 'string' ? node.name : undefined,
        config: (node.config as Record<string, unknown>) ?? {},
        inputs: (node.inputs as Record<string, unknown>) ?? {},
        position: positions.get(node.id) ?? { x: 0, y: 0 },
      })),
      edges: loaded.edges.map((edge) => ({
        source: edge.source,
        target: edge.target,
        ...(typeof edge.sourceHandle === 'string' ? { sourceHandle: edge.sourceHandle } : {}),
      })),
    });
  }, [id, workflow.data]);

  if (workflow.error) return <ErrorBanner error={workflow.error} />;
  if (!draft) return <p className="muted">Loading workflow…</p>;
  const { byNode, general } = problemsByNode(draft, problems);
  const node = draft.nodes.find((candidate) => candidate.id === selected);
  const edit = (next: Draft) => {
    setDraft(next);
    setStatus(undefined);
  };

  const check = async () => {
    setError(undefined);
    try {
      const answer = await unwrap(client.POST('/workflows/validate', { body: definitionOf(draft) }));
      setProblems(answer.errors.map((problem) => ({ ...problem, path: problem.path ?? '' })));
      setStatus(answer.valid ? 'No problems found.' : `${answer.errors.length} problem(s).`);
    } catch (caught) {
      setError(caught);
    }
  };
  const save = async () => {
    setError(undefined);
    try {
      const body = definitionOf(draft);
      const saved = id
        ? await unwrap(client.PUT('/workflows/{id}', { params: { path: { id } }, body }))
        : await unwrap(client.POST('/workflows', { body }));
      navigate(`/workflows/${saved.id}`);
    } catch (caught) {
      setProblems(caught instanceof ApiError ? caught.errors : []);
      setError(caught);
    }
  };
  const upstreamRefs = (nodeId: string) => refsBefore(draft, nodeId, types.data?.items ?? []);

  return (
    <section aria-labelledby="editor-title">
      <header className="page-header">
        <h1 id="editor-title">{id ? `Edit ${workflow.data?.name}` : 'New workflow'}</h1>
        <div className="actions">
          <button type="button" onClick={() => void check()}>
            Check
          </button>
          <button type="button" className="primary" onClick={() => void save()}>
            {id ? 'Save as a new version' : 'Create workflow'}
          </button>
        </div>
      </header>
      <div className="field editor-name">
        <label htmlFor="workflow-name">Workflow name</label>
        <input id="workflow-name" value={draft.name} onChange={(event) => edit({ ...draft, name: event.target.value })} />
      </div>
      <InputSchemaField schema={draft.inputSchema} onChange={(inputSchema) => edit({ ...draft, inputSchema })} />
      <ErrorBanner error={error ?? types.error} />
      {status && <p role="status">{status}</p>}
      {general.map((problem) => (
        <p key={problem.path + problem.code} className="problem">
          {problem.path}: {problem.message}
        </p>
      ))}
      <nav className="palette" aria-label="Node types">
        {(types.data?.items ?? []).map((type) => (
          <button
            key={type.type}
            type="button"
            title={type.description}
            onClick={() => {
              const next = addNode(draft, type.type, { x: 260, y: 60 * draft.nodes.length });
              edit(next);
              setSelected(next.nodes.at(-1)?.id);
            }}
          >
            + {type.title}
          </button>
        ))}
      </nav>
      <div className="run-layout">
        <EditorCanvas
          draft={draft}
          types={types.data?.items ?? []}
          problems={byNode}
          selected={selected}
          onChange={edit}
          onSelect={setSelected}
        />
        <aside className="run-side">
          <ConnectForm draft={draft} types={types.data?.items ?? []} onChange={edit} />
          {node ? (
            <NodePanel
              key={node.id}
              node={node}
              type={types.data?.items.find((type) => type.type === node.type)}
              toolsets={toolsets.data?.items ?? []}
              refs={upstreamRefs(node.id)}
              problems={byNode[node.id] ?? []}
              onChange={(change) => edit(updateNode(draft, node.id, change))}
              onRemove={() => {
                edit(removeNode(draft, node.id));
                setSelected(undefined);
              }}
            />
          ) : (
            <p className="muted">Choose a node to edit it, or add one from the palette.</p>
          )}
        </aside>
      </div>
    </section>
  );
}

/**
 * `node.output` references of the nodes with a path to `nodeId`, typed: their types' declared outputs,
 * the workflow's inputs for `start`; a node with none declared is offered open (any key).
 */
function refsBefore(draft: Draft, nodeId: string, types: NodeType[]): RefOption[] {
  const before = new Set<string>();
  const visit = (id: string) => {
    for (const edge of draft.edges)
      if (edge.target === id && !before.has(edge.source)) {
        before.add(edge.source);
        visit(edge.source);
      }
  };
  visit(nodeId);
  return draft.nodes
    .filter((node) => before.has(node.id))
    .flatMap((node): RefOption[] => {
      const outputs: { key: string; valueType: string }[] =
        node.type === 'start'
          ? Object.entries((draft.inputSchema?.properties as Record<string, unknown> | undefined) ?? {}).map(([key, schema]) => ({
              key,
              valueType: valueTypeOfSchema(schema),
            }))
          : (types.find((type) => type.type === node.type)?.outputs ?? []);
      return outputs.length
        ? outputs.map((output) => ({ ref: `${node.id}.${output.key}`, valueType: output.valueType }))
        : [{ ref: node.id, valueType: 'any', open: true }];
    });
}
