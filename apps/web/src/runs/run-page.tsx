import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/api-error';
import { readRunEvents } from '../api/run-events';
import { ErrorBanner } from '../components/error-banner';
import { formatDuration, formatJson, formatTime } from '../components/format';
import { useLoad } from '../components/use-load';
import { WorkflowGraph } from '../components/workflow-graph';
import { InputRequestPanel } from './input-request-panel';
import { belongsTo } from './map-items';
import { NodeLog } from './node-log';
import { ReplayForm } from './replay-form';
import { ACTIVE_RUN_STATUSES, applyEvent, emptyRunState, nodeStatuses, type RunState } from './run-state';

/** One run: its graph coloured live by node state, a node's log a click away, cancel / retry, the answer to a request for input. */
export function RunPage({ id }: { id: string }) {
  const { client, key } = useApi();
  const [, navigate] = useLocation();
  const [state, setState] = useState<RunState>(emptyRunState);
  const [streamError, setStreamError] = useState<unknown>();
  const [actionError, setActionError] = useState<unknown>();
  const [selected, setSelected] = useState<string>();

  const run = useLoad(() => unwrap(client.GET('/runs/{id}', { params: { path: { id } } })), [id]);
  const current = state.run ?? run.data;
  const workflow = useLoad(
    async () =>
      run.data
        ? unwrap(
            client.GET('/workflows/{id}/versions/{version}', {
              params: { path: { id: run.data.workflowId, version: String(run.data.version) } },
            }),
          )
        : undefined,
    [run.data?.workflowId, run.data?.version],
  );

  useEffect(() => {
    setState(emptyRunState);
    setSelected(undefined);
    const abort = new AbortController();
    readRunEvents(key, id, (event) => setState((previous) => applyEvent(previous, event)), abort.signal).catch((error: unknown) => {
      if (!abort.signal.aborted) setStreamError(error);
    });
    return () => abort.abort();
  }, [id, key]);

  if (run.error) return <ErrorBanner error={run.error} />;
  if (!current) return <p className="muted">Loading run…</p>;

  const nodes = workflow.data?.nodes ?? [];
  const statuses = nodeStatuses(
    nodes.map((node) => node.id),
    { ...state, run: current },
  );
  const active = ACTIVE_RUN_STATUSES.includes(current.status);
  const act = async (action: () => Promise<unknown>) => {
    setActionError(undefined);
    try {
      await action();
    } catch (error) {
      setActionError(error);
    }
  };
  const cancel = () => act(() => unwrap(client.POST('/runs/{id}/cancel', { params: { path: { id } } })));
  const retry = () =>
    act(async () => {
      const again = await unwrap(client.POST('/runs/{id}/retry', { params: { path: { id }, query: {} } }));
      navigate(`/runs/${again.id}`);
    });

  return (
    <section className="run-page" aria-labelledby="run-title">
      <header className="page-header">
        <div>
          <h1 id="run-title">
            Run <code>{current.id}</code>
          </h1>
          <p className="muted">
            <Link href={`/workflows/${current.workflowId}`}>{workflow.data?.name ?? current.workflowId}</Link> v{current.version} ·{' '}
            {current.source} · started {formatTime(current.startedAt ?? current.createdAt)} · {formatDuration(current.durationMs)}
          </p>
        </div>
        <div className="actions">
          <span className={`badge status-${current.status}`} data-testid="run-status">
            {current.status}
          </span>
          {active && (
            <button type="button" onClick={cancel}>
              Cancel
            </button>
          )}
          {!active && current.status !== 'succeeded' && (
            <button type="button" onClick={retry}>
              Retry
            </button>
          )}
        </div>
      </header>
      <ErrorBanner error={actionError ?? streamError ?? workflow.error} />
      {current.error && (
        <div className="error-banner" role="status">
          <strong>{current.error.code}</strong> {current.error.message}
          {current.error.nodeId && <> (node {current.error.nodeId})</>}
        </div>
      )}
      {current.status === 'waiting' && current.inputRequest && (
        <InputRequestPanel key={current.inputRequest.requestedAt} runId={id} request={current.inputRequest} />
      )}
      <div className="run-layout">
        <WorkflowGraph nodes={nodes} edges={workflow.data?.edges ?? []} statuses={statuses} selected={selected} onSelect={setSelected} />
        <aside className="run-side">
          <h2>Nodes</h2>
          <ul className="node-list">
            {nodes.map((node) => (
              <li key={node.id}>
                <button
                  type="button"
                  className={`node-button state-${statuses[node.id]?.state ?? 'none'}`}
                  aria-pressed={selected === node.id}
                  data-node={node.id}
                  data-state={statuses[node.id]?.state ?? 'none'}
                  onClick={() => setSelected(node.id)}
                >
                  <span>{node.id}</span>
                  <span className="muted">
                    {statuses[node.id]?.state ?? 'not run'}
                    {statuses[node.id]?.durationMs !== undefined && ` · ${formatDuration(statuses[node.id]?.durationMs)}`}
                  </span>
                </button>
              </li>
            ))}
          </ul>
          {selected ? (
            <>
              {!active && <ReplayForm key={selected} run={current} nodeId={selected} inputSchema={workflow.data?.inputSchema} />}
              <NodeLog nodeId={selected} items={state.items.filter((item) => belongsTo(item, selected))} />
            </>
          ) : (
            <p className="muted">Choose a node to see its log.</p>
          )}
        </aside>
      </div>
      <details>
        <summary>Run inputs and outputs</summary>
        <h3>Inputs</h3>
        <pre>{formatJson(current.inputs)}</pre>
        <h3>Outputs</h3>
        <pre>{formatJson(current.outputs)}</pre>
      </details>
    </section>
  );
}
