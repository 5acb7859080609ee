import { Link } from 'wouter';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { ErrorBanner } from '../components/error-banner';
import { formatTime } from '../components/format';
import { useLoad } from '../components/use-load';

/** The workflows, each a link to its graph, versions and run form. */
export function WorkflowsPage() {
  const { client } = useApi();
  const workflows = useLoad(() => unwrap(client.GET('/workflows', { params: { query: { limit: 200 } } })), []);
  return (
    <section aria-labelledby="workflows-title">
      <header className="page-header">
        <h1 id="workflows-title">Workflows</h1>
        <Link href="/workflows/new" className="button-link">
          New workflow
        </Link>
      </header>
      <ErrorBanner error={workflows.error} />
      <div className="table-wrap">
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Version</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {(workflows.data?.items ?? []).map((workflow) => (
              <tr key={workflow.id}>
                <td>
                  <Link href={`/workflows/${workflow.id}`}>{workflow.name}</Link>
                </td>
                <td>{workflow.description ?? ''}</td>
                <td>v{workflow.latestVersion}</td>
                <td>{formatTime(workflow.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {workflows.data?.items.length === 0 && <p className="muted">No workflows yet.</p>}
    </section>
  );
}
