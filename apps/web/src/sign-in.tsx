import { useState, type FormEvent } from 'react';
import { unwrap } from './api/api-error';
import { clientFor } from './api/session';
import { ErrorBanner } from './components/error-banner';

/** Asks for an API key once; it is checked with a call, then kept in this tab's sessionStorage only. */
export function SignIn({ onKey }: { onKey(key: string): void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await unwrap(clientFor(value.trim()).GET('/runs', { params: { query: { limit: 1 } } }));
      onKey(value.trim());
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <h1>mcpflow console</h1>
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autoComplete="off"
            required
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
          <small className="muted">Kept in this tab only (sessionStorage) and sent as a Bearer header to this origin.</small>
        </div>
        <ErrorBanner error={error} />
        <button type="submit" className="primary" disabled={busy || !value.trim()}>
          Open the console
        </button>
      </form>
    </main>
  );
}
