import { Link } from 'wouter';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration, formatTime } from '../components/format';
import { useLoad } from '../components/use-load';
import { HealthBadge } from './health-badge';

/** The registered toolsets with their last health check. */
export function ToolsetsPage() {
  const { client } = useApi();
  const toolsets = useLoad(() => unwrap(client.GET('/toolsets', { params: { query: { limit: 200 } } })), []);
  return (
    <section aria-labelledby="toolsets-title">
      <header className="page-header">
        <h1 id="toolsets-title">Toolsets</h1>
      </header>
      <ErrorBanner error={toolsets.error} />
      <div className="table-wrap">
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Health</th>
              <th scope="col">Tools</th>
              <th scope="col">Transport</th>
              <th scope="col">Checked</th>
            </tr>
          </thead>
          <tbody>
            {(toolsets.data?.items ?? []).map((toolset) => (
              <tr key={toolset.id} data-toolset={toolset.id}>
                <td>
                  <Link href={`/toolsets/${toolset.id}`}>{toolset.name}</Link>
                  <div className="muted">{toolset.url ?? toolset.command}</div>
                </td>
                <td>
                  <HealthBadge health={toolset.health} />
                  {toolset.auth?.state === 'needs_authorization' && <span className="badge status-waiting">needs authorization</span>}
                  {toolset.health && <span className="muted"> {formatDuration(toolset.health.latencyMs)}</span>}
                </td>
                <td>{toolset.toolCount}</td>
                <td>{toolset.transport}</td>
                <td>{formatTime(toolset.health?.checkedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {toolsets.data?.items.length === 0 && <p className="muted">No toolsets yet: register one with POST /toolsets.</p>}
    </section>
  );
}
