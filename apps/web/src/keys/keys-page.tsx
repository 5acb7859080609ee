import { useState } from 'react';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatTime } from '../components/format';
import { useLoad } from '../components/use-load';
import { CreateKeyForm } from './create-key-form';
import { McpServers } from './mcp-servers';

/** API keys (create, list, revoke) and the published MCP servers with what to paste into a client. */
export function KeysPage() {
  const { client, key: ownKey } = useApi();
  const [revokeError, setRevokeError] = useState<unknown>();
  const keys = useLoad(() => unwrap(client.GET('/api-keys', { params: { query: { limit: 200 } } })), []);

  const revoke = async (id: string, name: string) => {
    if (!window.confirm(`Revoke the key "${name}"? Clients using it stop working at once.`)) return;
    setRevokeError(undefined);
    try {
      await unwrap(client.DELETE('/api-keys/{id}', { params: { path: { id } } }));
      keys.reload();
    } catch (error) {
      setRevokeError(error);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <header className="page-header">
        <h1 id="keys-title">API keys</h1>
      </header>
      <CreateKeyForm onCreated={keys.reload} />
      <ErrorBanner error={keys.error ?? revokeError} />
      <div className="table-wrap">
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key starts with</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(keys.data?.items ?? []).map((key) => (
              <tr key={key.id} data-key={key.id}>
                <td>
                  {key.name}
                  {ownKey.startsWith(key.prefix) && <span className="badge">this tab's key</span>}
                </td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  {key.scopes.join(', ')}
                  {key.workflows && <span className="muted"> ({key.workflows.length} workflows)</span>}
                </td>
                <td>{formatTime(key.lastUsedAt)}</td>
                <td>{key.expiresAt ? formatTime(key.expiresAt) : 'never'}</td>
                <td>
                  {key.revokedAt ? (
                    <span className="badge">revoked {formatTime(key.revokedAt)}</span>
                  ) : (
                    <button type="button" onClick={() => void revoke(key.id, key.name)} aria-label={`Revoke ${key.name}`}>
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <McpServers />
    </section>
  );
}
