import { useState } from 'react';
import type { components } from '#client';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { SchemaForm } from '../components/schema-form';
import { useLoad } from '../components/use-load';
import { InputSources } from './input-sources';
import type { RefOption, TypedField } from './value-sources';
import type { DraftNode, NodeType } from './workflow-draft';

type ToolsetSummary = components['schemas']['ToolsetSummary'];
type Tool = components['schemas']['Tool'];

interface Props {
  node: DraftNode;
  type?: NodeType;
  toolsets: ToolsetSummary[];
  /** `nodeId.output` references this node may use, from the nodes before it, with their types. */
  refs: RefOption[];
  problems: string[];
  onChange(change: Partial<DraftNode>): void;
  onRemove(): void;
}

/** The chosen node: name, config (a form from the type's configSchema), inputs (value sources), removal. */
export function NodePanel({ node, type, toolsets, refs, problems, onChange, onRemove }: Props) {
  const [inputsText, setInputsText] = useState(() => JSON.stringify(node.inputs, null, 2));
  const [inputsProblem, setInputsProblem] = useState<string>();
  const schema = withToolsetChoice(type?.configSchema, toolsets);
  const tool = useTool(node);
  // A tool's inputs when the config names one, else the type's own (absent when they depend on config or are free-form).
  const typedInputs: TypedField[] | undefined = tool ? tool.inputs : type?.inputs;

  const applyInputs = () => {
    try {
      const parsed = JSON.parse(inputsText || '{}') as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('an object of input name → value source');
      setInputsProblem(undefined);
      onChange({ inputs: parsed as Record<string, unknown> });
    } catch (error) {
      setInputsProblem(`Not valid: ${(error as Error).message}`);
    }
  };

  return (
    <section aria-labelledby="node-panel-title" data-testid="node-panel">
      <h2 id="node-panel-title">
        <code>{node.id}</code> · {type?.title ?? node.type}
      </h2>
      {type?.description && <p className="muted">{type.description}</p>}
      {problems.map((problem) => (
        <p key={problem} className="problem">
          {problem}
        </p>
      ))}
      <div className="field">
        <label htmlFor="node-name">Name</label>
        <input id="node-name" value={node.name ?? ''} onChange={(event) => onChange({ name: event.target.value || undefined })} />
      </div>
      <h3>Config</h3>
      <SchemaForm
        key={node.id}
        schema={schema}
        initial={node.config}
        submitLabel="Apply config"
        onSubmit={(config) => onChange({ config })}
      />
      <h3>Inputs</h3>
      {typedInputs && typedInputs.length > 0 && (
        <InputSources fields={typedInputs} inputs={node.inputs} refs={refs} onChange={(inputs) => onChange({ inputs })} />
      )}
      {typedInputs && typedInputs.length === 0 && <p className="muted">This node takes no inputs.</p>}
      {!typedInputs && (
        <>
          <div className="field">
            <label htmlFor="node-inputs">
              Inputs (name → {'{"value": …}'}, {'{"ref": "node.output"}'} or {'{"template": "…"}'})
            </label>
            <textarea
              id="node-inputs"
              rows={6}
              spellCheck={false}
              value={inputsText}
              onChange={(event) => setInputsText(event.target.value)}
              aria-describedby="node-inputs-help"
            />
            <small id="node-inputs-help" className="muted">
              {refs.length > 0 ? (
                <>References from earlier nodes: {refs.map((option) => (option.open ? `${option.ref}.…` : option.ref)).join(', ')}.</>
              ) : (
                'No earlier node to refer to.'
              )}
            </small>
            {inputsProblem && <small className="problem">{inputsProblem}</small>}
          </div>
          <button type="button" onClick={applyInputs}>
            Apply inputs
          </button>
        </>
      )}
      <div className="actions">
        <button type="button" onClick={onRemove}>
          Remove node
        </button>
      </div>
    </section>
  );
}

/** The configSchema with `toolsetId` offered as a choice of the registered toolsets. */
function withToolsetChoice(schema: unknown, toolsets: ToolsetSummary[]): unknown {
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties?.toolsetId || toolsets.length === 0) return schema;
  const toolsetId = {
    ...(properties.toolsetId as object),
    enum: toolsets.map((toolset) => toolset.id),
    enumNames: toolsets.map((toolset) => toolset.name),
  };
  return { ...(schema as object), properties: { ...properties, toolsetId } };
}

/** The tool an mcpTool-like node's config names (`toolsetId` and `tool`), from the toolset's snapshot, once both are set. */
function useTool(node: DraftNode): Tool | undefined {
  const { client } = useApi();
  const toolsetId = typeof node.config.toolsetId === 'string' ? node.config.toolsetId : undefined;
  const toolset = useLoad(
    async () => (toolsetId ? unwrap(client.GET('/toolsets/{id}', { params: { path: { id: toolsetId } } })) : undefined),
    [toolsetId],
  );
  return toolset.data?.id === toolsetId ? toolset.data?.tools.find((candidate) => candidate.name === node.config.tool) : undefined;
}
