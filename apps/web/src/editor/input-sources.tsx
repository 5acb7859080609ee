import { useId, useState } from 'react';
import {
  kindOf,
  literalEditor,
  sortedRefs,
  splitRef,
  startingSource,
  withSource,
  type RefOption,
  type SourceKind,
  type TypedField,
} from './value-sources';

interface Props {
  fields: TypedField[];
  inputs: Record<string, unknown>;
  refs: RefOption[];
  onChange(inputs: Record<string, unknown>): void;
}

const KIND_LABELS: Record<SourceKind, string> = { value: 'Value', ref: 'Reference', template: 'Template' };

/**
 * One field per declared input (a tool's inputSchema property, a node type's input): the person
 * picks where its value comes from — a typed literal, a reference to an earlier node's output, or
 * a template — and the node's `inputs` get `{"value": …}`, `{"ref": "node.output"}` or `{"template": "…"}`.
 */
export function InputSources({ fields, inputs, refs, onChange }: Props) {
  const others = Object.keys(inputs).filter((key) => !fields.some((field) => field.key === key));
  return (
    <div className="input-sources">
      {fields.map((field) => (
        <InputSource
          key={field.key}
          field={field}
          source={inputs[field.key]}
          refs={refs}
          onChange={(source) => onChange(withSource(inputs, field.key, source))}
        />
      ))}
      {others.length > 0 && (
        <p className="problem">
          Set but not an input of this node: {others.join(', ')}.{' '}
          <button
            type="button"
            onClick={() => onChange(Object.fromEntries(Object.entries(inputs).filter(([key]) => !others.includes(key))))}
          >
            Remove them
          </button>
        </p>
      )}
    </div>
  );
}

interface SourceProps {
  field: TypedField;
  source: unknown;
  refs: RefOption[];
  onChange(source: unknown): void;
}

function InputSource({ field, source, refs, onChange }: SourceProps) {
  const id = useId();
  const kind = kindOf(source);
  const record = (source ?? {}) as Record<string, unknown>;
  return (
    <fieldset className="input-source" data-input={field.key} aria-describedby={field.description ? `${id}-help` : undefined}>
      <legend>
        <code>{field.key}</code>{' '}
        <span className="muted">
          {field.valueType}
          {field.required && ', required'}
        </span>
      </legend>
      {field.description && (
        <small id={`${id}-help`} className="muted">
          {field.description}
        </small>
      )}
      <div className="field">
        <label htmlFor={`${id}-kind`}>Source</label>
        <select
          id={`${id}-kind`}
          value={kind ?? ''}
          onChange={(event) => onChange(event.target.value ? startingSource(event.target.value as SourceKind, field, refs) : undefined)}
        >
          <option value="">{field.required ? 'not set (required)' : 'not set'}</option>
          {(Object.keys(KIND_LABELS) as SourceKind[]).map((option) => (
            <option key={option} value={option}>
              {KIND_LABELS[option]}
            </option>
          ))}
        </select>
      </div>
      {kind === 'value' && <LiteralInput id={`${id}-value`} field={field} value={record.value} onChange={(value) => onChange({ value })} />}
      {kind === 'ref' && <RefInput id={`${id}-ref`} field={field} value={String(record.ref ?? '')} refs={refs} onChange={onChange} />}
      {kind === 'template' && (
        <div className="field">
          <label htmlFor={`${id}-template`}>Template</label>
          <input
            id={`${id}-template`}
            value={String(record.template ?? '')}
            placeholder="Hello {{start.name}}"
            onChange={(event) => onChange({ template: event.target.value })}
          />
        </div>
      )}
    </fieldset>
  );
}

function RefInput({
  id,
  field,
  value,
  refs,
  onChange,
}: {
  id: string;
  field: TypedField;
  value: string;
  refs: RefOption[];
  onChange(source: unknown): void;
}) {
  const offered = sortedRefs(refs, field.valueType);
  const { base, path } = splitRef(value, offered);
  const join = (nextBase: string, nextPath: string) => onChange({ ref: nextPath ? `${nextBase}.${nextPath}` : nextBase });
  return (
    <>
      <div className="field">
        <label htmlFor={id}>Reference</label>
        <select id={id} value={base} onChange={(event) => join(event.target.value, path)}>
          {!offered.some((option) => option.ref === base) && <option value={base}>{base || 'choose an output'}</option>}
          {offered.map((option) => (
            <option key={option.ref} value={option.ref}>
              {option.open ? `${option.ref}.… (any key: give it as the path)` : `${option.ref} (${option.valueType})`}
            </option>
          ))}
        </select>
        {offered.length === 0 && <small className="muted">No earlier node to refer to: connect one to this node first.</small>}
      </div>
      <div className="field">
        <label htmlFor={`${id}-path`}>Path inside (optional)</label>
        <input id={`${id}-path`} value={path} placeholder="sum or items.0.name" onChange={(event) => join(base, event.target.value)} />
      </div>
    </>
  );
}

function LiteralInput({ id, field, value, onChange }: { id: string; field: TypedField; value: unknown; onChange(value: unknown): void }) {
  const editor = literalEditor(field);
  const [text, setText] = useState(() =>
    editor === 'json' ? JSON.stringify(value ?? null, null, 2) : value === undefined ? '' : String(value),
  );
  const [problem, setProblem] = useState<string>();
  const label = <label htmlFor={id}>Value</label>;
  const problemNote = problem && (
    <small id={`${id}-problem`} className="problem" role="alert">
      {problem}
    </small>
  );
  const common = { id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': problem ? `${id}-problem` : undefined };

  if (editor === 'boolean') {
    return (
      <div className="field field-check">
        <input type="checkbox" id={id} checked={value === true} onChange={(event) => onChange(event.target.checked)} />
        {label}
      </div>
    );
  }
  if (editor === 'choice') {
    const options = field.enum ?? [];
    return (
      <div className="field">
        {label}
        <select id={id} value={String(options.indexOf(value))} onChange={(event) => onChange(options[Number(event.target.value)])}>
          {!options.includes(value) && <option value="-1">choose</option>}
          {options.map((option, index) => (
            <option key={JSON.stringify(option)} value={index}>
              {typeof option === 'string' ? option : JSON.stringify(option)}
            </option>
          ))}
        </select>
      </div>
    );
  }
  const update = (next: string) => {
    setText(next);
    const parsed = parseLiteral(editor, field.valueType, next);
    setProblem(parsed.problem);
    if (!parsed.problem) onChange(parsed.value);
  };
  return (
    <div className="field">
      {label}
      {editor === 'json' ? (
        <textarea {...common} rows={4} spellCheck={false} value={text} onChange={(event) => update(event.target.value)} />
      ) : (
        <input
          {...common}
          type={editor === 'number' ? 'number' : editor === 'secret' ? 'password' : 'text'}
          step={editor === 'number' ? (field.valueType === 'integer' ? 1 : 'any') : undefined}
          autoComplete={editor === 'secret' ? 'off' : undefined}
          value={text}
          onChange={(event) => update(event.target.value)}
        />
      )}
      {problemNote}
    </div>
  );
}

/** The typed-in text as the literal it stands for, or what is wrong with it (the draft keeps the last good value). */
function parseLiteral(editor: string, valueType: string, text: string): { value?: unknown; problem?: string } {
  if (editor === 'number') {
    const number = Number(text);
    if (text.trim() === '' || !Number.isFinite(number)) return { problem: 'Not a number.' };
    if (valueType === 'integer' && !Number.isInteger(number)) return { problem: 'Not an integer.' };
    return { value: number };
  }
  if (editor !== 'json') return { value: text };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
}
