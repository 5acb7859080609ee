import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useApi } from '../api/api-context';
import { ApiError, unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatTime } from '../components/format';
import { SchemaForm } from '../components/schema-form';
import { useLoad } from '../components/use-load';
import { WorkflowGraph } from '../components/workflow-graph';

/** A workflow: its graph (any version), its versions, and a form from its inputSchema that starts a run. */
export function WorkflowPage({ id }: { id: string }) {
  const { client } = useApi();
  const [, navigate] = useLocation();
  const [version, setVersion] = useState<number>();
  const [runError, setRunError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const latest = useLoad(() => unwrap(client.GET('/workflows/{id}', { params: { path: { id } } })), [id]);
  const versions = useLoad(() => unwrap(client.GET('/workflows/{id}/versions', { params: { path: { id }, query: { limit: 200 } } })), [id]);
  const chosen = useLoad(
    async () =>
      version
        ? unwrap(client.GET('/workflows/{id}/versions/{version}', { params: { path: { id, version: String(version) } } }))
        : undefined,
    [id, version],
  );
  const shown = chosen.data ?? latest.data;

  const run = async (inputs: Record<string, unknown>) => {
    if (!shown) return;
    setBusy(true);
    setRunError(undefined);
    try {
      const started = await unwrap(
        client.POST('/workflows/{id}/runs', { params: { path: { id }, query: {} }, body: { inputs, version: shown.version } }),
      );
      navigate(`/runs/${started.id}`);
    } catch (error) {
      setRunError(error);
      setBusy(false);
    }
  };

  if (latest.error) return <ErrorBanner error={latest.error} />;
  if (!shown) return <p className="muted">Loading workflow…</p>;
  return (
    <section aria-labelledby="workflow-title">
      <header className="page-header">
        <div>
          <h1 id="workflow-title">{shown.name}</h1>
          {shown.description && <p className="muted">{shown.description}</p>}
        </div>
        <div className="actions">
          <Link href={`/workflows/${id}/edit`} className="button-link">
            Edit
          </Link>
          <label className="inline">
            Version
            <select value={shown.version} onChange={(event) => setVersion(Number(event.target.value))}>
              {(versions.data?.items ?? [{ version: shown.version, createdAt: shown.createdAt, createdBy: null }]).map((item) => (
                <option key={item.version} value={item.version}>
                  v{item.version} · {formatTime(item.createdAt)}
                </option>
              ))}
            </select>
          </label>
        </div>
      </header>
      <div className="run-layout">
        <WorkflowGraph nodes={shown.nodes} edges={shown.edges} />
        <aside className="run-side">
          <h2>Run version {shown.version}</h2>
          <ErrorBanner error={runError} />
          <SchemaForm
            key={`${shown.id}-${shown.version}`}
            schema={shown.inputSchema}
            submitLabel="Run"
            busy={busy}
            problems={runError instanceof ApiError ? runError.errors : []}
            onSubmit={run}
          />
        </aside>
      </div>
    </section>
  );
}
