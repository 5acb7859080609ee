import { useState, type FormEvent } from 'react';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { CopyButton } from './copy-button';

const SCOPES = ['read', 'run', 'write', 'mcp', 'metrics', 'admin'] as const;
type Scope = (typeof SCOPES)[number];

/** Creates a key; the answer is the only time the key is shown, so it is shown here with a copy button. */
export function CreateKeyForm({ onCreated }: { onCreated(): void }) {
  const { client } = useApi();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read']);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<{ name: string; key: string }>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const answer = await unwrap(client.POST('/api-keys', { body: { name, scopes } }));
      setCreated({ name: answer.name, key: answer.key });
      setName('');
      onCreated();
    } catch (caught) {
      setError(caught);
    }
  };
  const problem = (field: string) =>
    error instanceof ApiError ? error.errors.find((item) => item.path.includes(field))?.message : undefined;

  return (
    <div className="panel">
      <form className="schema-form" onSubmit={submit} aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <div className="field">
          <label htmlFor="key-name">Name</label>
          <input id="key-name" required value={name} onChange={(event) => setName(event.target.value)} aria-invalid={!!problem('name')} />
          {problem('name') && <small className="problem">{problem('name')}</small>}
        </div>
        <fieldset className="field">
          <legend>Scopes</legend>
          <div className="choices">
            {SCOPES.map((scope) => (
              <label key={scope} className="choice">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) =>
                    setScopes((current) => (event.target.checked ? [...current, scope] : current.filter((item) => item !== scope)))
                  }
                />
                {scope}
              </label>
            ))}
          </div>
        </fieldset>
        <ErrorBanner error={error} />
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
      {created && (
        <div className="created-key" role="status" data-testid="created-key">
          <p>
            The key <strong>{created.name}</strong> — copy it now, it is not shown again:
          </p>
          <div className="actions">
            <code className="secret">{created.key}</code>
            <CopyButton text={created.key} label="Copy key" />
            <button type="button" onClick={() => setCreated(undefined)}>
              Done
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
