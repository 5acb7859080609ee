import { useId, useState, type FormEvent } from 'react';
import type { Problem } from '../api/api-error';
import { fieldsOf, initialValues, valuesToSubmit, type Field } from './schema-fields';

interface Props {
  /** A JSON Schema of an object (a workflow's inputSchema, an elicitation's requestedSchema, a node's config). */
  schema: unknown;
  submitLabel: string;
  onSubmit(values: Record<string, unknown>): void | Promise<void>;
  /** Problems of the last answer; a problem's path ends with the field's name (`/inputs/city`, `/content/name`). */
  problems?: Problem[];
  busy?: boolean;
  /** Other buttons shown beside the submit one (decline, cancel…). */
  extraActions?: React.ReactNode;
  /** Values already set (a node's config), shown instead of the schema's defaults. */
  initial?: Record<string, unknown>;
}

/** The one form built from a JSON Schema, used by every page that asks for values. */
export function SchemaForm({ schema, submitLabel, onSubmit, problems = [], busy = false, extraActions, initial }: Props) {
  const fields = fieldsOf(schema);
  const [values, setValues] = useState<Record<string, string | boolean | string[]>>(() => initialValues(fields, initial));
  const [localProblems, setLocalProblems] = useState<Record<string, string>>({});
  const formId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { values: converted, problems: found } = valuesToSubmit(fields, values);
    setLocalProblems(found);
    if (Object.keys(found).length === 0) void onSubmit(converted);
  };
  const problemOf = (name: string) => localProblems[name] ?? problems.find((problem) => problem.path.split('/').includes(name))?.message;
  const unplaced = problems.filter((problem) => !fields.some((field) => problem.path.split('/').includes(field.name)));

  return (
    <form className="schema-form" onSubmit={submit} noValidate>
      {fields.length === 0 && <p className="muted">No values asked for.</p>}
      {fields.map((field) => (
        <FieldInput
          key={field.name}
          id={`${formId}-${field.name}`}
          field={field}
          value={values[field.name]}
          problem={problemOf(field.name)}
          onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
        />
      ))}
      {unplaced.map((problem) => (
        <p key={problem.path + problem.code} className="problem" role="alert">
          {problem.path || '/'}: {problem.message}
        </p>
      ))}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {extraActions}
      </div>
    </form>
  );
}

interface FieldProps {
  id: string;
  field: Field;
  value: string | boolean | string[] | undefined;
  problem?: string;
  onChange(value: string | boolean | string[]): void;
}

function FieldInput({ id, field, value, problem, onChange }: FieldProps) {
  const describedBy = [field.description ? `${id}-help` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: field.name,
    'aria-describedby': describedBy,
    'aria-invalid': problem ? true : undefined,
    required: field.required,
  };
  const label = (
    <label htmlFor={id}>
      {field.title}
      {field.required && <span aria-hidden="true"> *</span>}
    </label>
  );
  let control: React.ReactNode;
  if (field.kind === 'boolean') {
    return (
      <div className="field field-check">
        <input type="checkbox" {...common} checked={value === true} onChange={(event) => onChange(event.target.checked)} />
        {label}
        <Help id={id} field={field} problem={problem} />
      </div>
    );
  } else if (field.kind === 'multi') {
    const chosen = (value as string[]) ?? [];
    return (
      <fieldset className="field" aria-describedby={describedBy}>
        <legend>{field.title}</legend>
        {field.options.map((option) => (
          <label key={option.value} className="choice">
            <input
              type="checkbox"
              checked={chosen.includes(option.value)}
              onChange={(event) =>
                onChange(event.target.checked ? [...chosen, option.value] : chosen.filter((item) => item !== option.value))
              }
            />
            {option.label}
          </label>
        ))}
        <Help id={id} field={field} problem={problem} />
      </fieldset>
    );
  } else if (field.kind === 'choice') {
    control = (
      <select {...common} value={value as string} onChange={(event) => onChange(event.target.value)}>
        {!field.required && <option value="">—</option>}
        {field.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'json') {
    control = (
      <textarea {...common} rows={4} spellCheck={false} value={value as string} onChange={(event) => onChange(event.target.value)} />
    );
  } else {
    control = (
      <input
        {...common}
        type={field.kind === 'secret' ? 'password' : field.kind === 'number' ? 'number' : field.inputType}
        step={field.kind === 'number' ? (field.integer ? 1 : 'any') : undefined}
        autoComplete={field.kind === 'secret' ? 'off' : undefined}
        value={value as string}
        onChange={(event) => onChange(event.target.value)}
      />
    );
  }
  return (
    <div className="field">
      {label}
      {control}
      <Help id={id} field={field} problem={problem} />
    </div>
  );
}

function Help({ id, field, problem }: { id: string; field: Field; problem?: string }) {
  return (
    <>
      {field.description && (
        <small id={`${id}-help`} className="muted">
          {field.description}
        </small>
      )}
      {problem && (
        <small id={`${id}-problem`} className="problem" role="alert">
          {problem}
        </small>
      )}
    </>
  );
}
