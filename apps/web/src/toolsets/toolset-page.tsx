import { useCallback, useState } from 'react';
import type { components } from '#client';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration, formatJson, formatTime } from '../components/format';
import { useLoad } from '../components/use-load';
import { HealthBadge } from './health-badge';
import { OAuthState } from './oauth-state';
import { UsageChart } from './usage-chart';

/** A toolset: health (check again), its tools with their schemas, usage, refresh and the change history. */
export function ToolsetPage({ id }: { id: string }) {
  const { client } = useApi();
  const [actionError, setActionError] = useState<unknown>();
  const [busy, setBusy] = useState<string>();
  const toolset = useLoad(() => unwrap(client.GET('/toolsets/{id}', { params: { path: { id } } })), [id]);
  const usage = useLoad(() => unwrap(client.GET('/toolsets/{id}/usage', { params: { path: { id }, query: {} } })), [id]);
  const changes = useLoad(() => unwrap(client.GET('/toolsets/{id}/changes', { params: { path: { id }, query: { limit: 50 } } })), [id]);

  const act = async (name: string, action: () => Promise<unknown>) => {
    setBusy(name);
    setActionError(undefined);
    try {
      await action();
      toolset.reload();
      changes.reload();
    } catch (error) {
      setActionError(error);
    } finally {
      setBusy(undefined);
    }
  };

  const { reload: reloadToolset } = toolset;
  const { reload: reloadChanges } = changes;
  const onAuthorized = useCallback(() => {
    reloadToolset();
    reloadChanges();
  }, [reloadToolset, reloadChanges]);

  if (toolset.error) return <ErrorBanner error={toolset.error} />;
  const shown = toolset.data;
  if (!shown) return <p className="muted">Loading toolset…</p>;
  return (
    <section aria-labelledby="toolset-title">
      <header className="page-header">
        <div>
          <h1 id="toolset-title">{shown.name}</h1>
          <p className="muted">{describeServer(shown)}</p>
        </div>
        <div className="actions">
          <HealthBadge health={shown.health} />
          <button
            type="button"
            disabled={!!busy}
            onClick={() => act('check', () => unwrap(client.POST('/toolsets/{id}/check', { params: { path: { id } } })))}
          >
            {busy === 'check' ? 'Checking…' : 'Check health'}
          </button>
          <button
            type="button"
            disabled={!!busy}
            onClick={() => act('refresh', () => unwrap(client.POST('/toolsets/{id}/refresh', { params: { path: { id } } })))}
          >
            {busy === 'refresh' ? 'Refreshing…' : 'Refresh tools'}
          </button>
        </div>
      </header>
      <ErrorBanner error={actionError} />
      {shown.auth && <OAuthState toolsetId={id} auth={shown.auth} onAuthorized={onAuthorized} />}
      {shown.health?.error && (
        <p className="problem">
          <strong>{shown.health.error.code}</strong> {shown.health.error.message}
        </p>
      )}
      <p className="muted">
        Tools listed {formatTime(shown.toolsRefreshedAt)}; health checked {formatTime(shown.health?.checkedAt)}
        {shown.health && ` in ${formatDuration(shown.health.latencyMs)}`}.
      </p>

      <h2>Tools ({shown.tools.length})</h2>
      {shown.tools.map((tool) => (
        <details key={tool.name} className="tool" data-tool={tool.name}>
          <summary>
            <strong>{tool.title ?? tool.name}</strong> <code>{tool.name}</code>
            {!tool.usable && <span className="badge status-failed">unusable</span>}
            {tool.description && <span className="muted"> — {tool.description}</span>}
          </summary>
          {tool.unusableReason && <p className="problem">{tool.unusableReason}</p>}
          <h3>Input schema</h3>
          <pre>{formatJson(tool.inputSchema)}</pre>
          {tool.outputSchema && (
            <>
              <h3>Output schema</h3>
              <pre>{formatJson(tool.outputSchema)}</pre>
            </>
          )}
        </details>
      ))}

      <h2>Usage</h2>
      <ErrorBanner error={usage.error} />
      {usage.data && usage.data.tools.length === 0 && <p className="muted">No calls since {formatTime(usage.data.since)}.</p>}
      {usage.data && usage.data.tools.length > 0 && (
        <div className="usage-layout">
          <UsageChart usage={usage.data} />
          <div className="table-wrap">
            <table className="list">
              <caption className="muted">
                Since {formatTime(usage.data.since)} until {formatTime(usage.data.until)}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Calls</th>
                  <th scope="col">Errors</th>
                  <th scope="col">p50</th>
                  <th scope="col">p95</th>
                </tr>
              </thead>
              <tbody>
                {usage.data.tools.map((tool) => (
                  <tr key={tool.tool}>
                    <td>{tool.tool}</td>
                    <td>{tool.calls}</td>
                    <td>
                      {Object.entries(tool.errors)
                        .map(([code, count]) => `${code} ×${count}`)
                        .join(', ') || '—'}
                    </td>
                    <td>{formatDuration(tool.p50Ms)}</td>
                    <td>{formatDuration(tool.p95Ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}

      <h2>Change history</h2>
      <ErrorBanner error={changes.error} />
      {changes.data?.items.length === 0 && <p className="muted">No changes to the tool list yet.</p>}
      <ul className="changes">
        {(changes.data?.items ?? []).map((change) => (
          <li key={change.id}>
            {formatTime(change.at)} · {change.source}: {describeChange(change)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function describeChange(change: { added: string[]; removed: string[]; changed: string[] }): string {
  const parts = [
    change.added.length ? `added ${change.added.join(', ')}` : '',
    change.removed.length ? `removed ${change.removed.join(', ')}` : '',
    change.changed.length ? `changed ${change.changed.join(', ')}` : '',
  ].filter(Boolean);
  return parts.join('; ') || 'no difference';
}

/** "url · transport · MCP revision · server version", leaving out what the server has not told yet (an OAuth toolset before its first listing). */
function describeServer(toolset: components['schemas']['Toolset']): string {
  const server = `${toolset.serverInfo.name} ${toolset.serverInfo.version}`.trim();
  const known = toolset.protocolVersion && toolset.protocolVersion !== 'unknown';
  const revision = known ? `MCP ${toolset.protocolVersion}` : '';
  return [toolset.url ?? toolset.command, toolset.transport, revision, server].filter(Boolean).join(' · ');
}
