import { useCallback, useState } from 'react';
import { Link } from 'wouter';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration, formatTime } from '../components/format';
import { useInterval, useLoad } from '../components/use-load';
import type { Run } from './run-state';

const STATUSES: Run['status'][] = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'canceled'];
const SOURCES: Run['source'][] = ['api', 'mcp'];
/** Time windows of the list (by creation time); the API has no time filter, so the page filters the runs it read. */
const WINDOWS: [string, number | undefined][] = [
  ['any time', undefined],
  ['last hour', 3_600_000],
  ['last 24 hours', 86_400_000],
  ['last 7 days', 604_800_000],
];
const PAGE = 50;
const REFRESH_MS = 3000;

/** The runs, newest first, filtered by workflow, status, source and time; read again every few seconds. */
export function RunsPage() {
  const { client } = useApi();
  const [workflowId, setWorkflowId] = useState('');
  const [status, setStatus] = useState('');
  const [source, setSource] = useState('');
  const [window, setWindow] = useState(0);
  const [limit, setLimit] = useState(PAGE);

  const workflows = useLoad(() => unwrap(client.GET('/workflows', { params: { query: { limit: 100 } } })), []);
  const runs = useLoad(
    () =>
      unwrap(
        client.GET('/runs', {
          params: { query: { limit, workflowId: workflowId || undefined, status: (status || undefined) as Run['status'] | undefined } },
        }),
      ),
    [workflowId, status, limit],
  );
  useInterval(
    useCallback(() => runs.reload(), [runs.reload]),
    REFRESH_MS,
  );

  const since = WINDOWS[window][1];
  const shown = (runs.data?.items ?? []).filter(
    (run) => (!source || run.source === source) && (since === undefined || Date.parse(run.createdAt) >= Date.now() - since),
  );
  const names = new Map((workflows.data?.items ?? []).map((workflow) => [workflow.id, workflow.name]));

  return (
    <section aria-labelledby="runs-title">
      <header className="page-header">
        <h1 id="runs-title">Runs</h1>
        <span className="muted">live: read again every {REFRESH_MS / 1000} s</span>
      </header>
      <form className="filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Workflow
          <select value={workflowId} onChange={(event) => setWorkflowId(event.target.value)}>
            <option value="">all</option>
            {(workflows.data?.items ?? []).map((workflow) => (
              <option key={workflow.id} value={workflow.id}>
                {workflow.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.target.value)}>
            <option value="">all</option>
            {STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Source
          <select value={source} onChange={(event) => setSource(event.target.value)}>
            <option value="">all</option>
            {SOURCES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Time
          <select value={window} onChange={(event) => setWindow(Number(event.target.value))}>
            {WINDOWS.map(([label], index) => (
              <option key={label} value={index}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ErrorBanner error={runs.error} />
      <div className="table-wrap">
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Workflow</th>
              <th scope="col">Status</th>
              <th scope="col" className="wide-only">
                Source
              </th>
              <th scope="col">Created</th>
              <th scope="col" className="wide-only">
                Duration
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((run) => (
              <tr key={run.id} data-run={run.id}>
                <td>
                  <Link href={`/runs/${run.id}`}>
                    <code>{run.id.slice(-8)}</code>
                  </Link>
                </td>
                <td>
                  {names.get(run.workflowId) ?? <code>{run.workflowId.slice(-8)}</code>} v{run.version}
                </td>
                <td>
                  <span className={`badge status-${run.status}`}>{run.status}</span>
                  {run.error && <span className="muted"> {run.error.code}</span>}
                </td>
                <td className="wide-only">{run.source}</td>
                <td>{formatTime(run.createdAt)}</td>
                <td className="wide-only">{formatDuration(run.durationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {shown.length === 0 && !runs.loading && <p className="muted">No runs match.</p>}
      {runs.data?.nextCursor && (
        <button type="button" onClick={() => setLimit((value) => Math.min(value + PAGE, 200))} disabled={limit >= 200}>
          Show more
        </button>
      )}
    </section>
  );
}
