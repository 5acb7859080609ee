import { useState } from 'react';

interface Props {
  schema?: Record<string, unknown>;
  onChange(schema: Record<string, unknown> | undefined): void;
}

/**
 * The workflow's `inputSchema` as JSON: what the Run form asks for and what `start` publishes (the
 * references the per-input forms offer as `start.<name>`). Empty: no schema, start takes any key.
 */
export function InputSchemaField({ schema, onChange }: Props) {
  const [text, setText] = useState(() => (schema ? JSON.stringify(schema, null, 2) : ''));
  const [problem, setProblem] = useState<string>();
  const apply = () => {
    try {
      const parsed = text.trim() ? (JSON.parse(text) as unknown) : undefined;
      if (parsed !== undefined && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)))
        throw new Error('a JSON Schema object, e.g. {"type": "object", "properties": {…}}');
      setProblem(undefined);
      onChange(parsed as Record<string, unknown> | undefined);
    } catch (error) {
      setProblem(`Not valid: ${(error as Error).message}`);
    }
  };
  return (
    <details className="input-schema" open={!!schema}>
      <summary>
        Run inputs{schema ? `: ${Object.keys((schema.properties as object | undefined) ?? {}).join(', ')}` : ' (none declared)'}
      </summary>
      <div className="field">
        <label htmlFor="workflow-input-schema">Run inputs (JSON Schema)</label>
        <textarea
          id="workflow-input-schema"
          rows={5}
          spellCheck={false}
          value={text}
          placeholder='{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}'
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? 'workflow-input-schema-problem' : undefined}
          onChange={(event) => setText(event.target.value)}
        />
        {problem && (
          <small id="workflow-input-schema-problem" className="problem" role="alert">
            {problem}
          </small>
        )}
      </div>
      <button type="button" onClick={apply}>
        Apply run inputs
      </button>
    </details>
  );
}
