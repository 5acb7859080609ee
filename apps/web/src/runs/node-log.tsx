import { formatDuration, formatJson, formatTime } from '../components/format';
import type { LogItem } from './run-state';

/** Details MCP tool nodes add to their log items. */
const DETAILS: [string, string][] = [
  ['toolsetId', 'Toolset'],
  ['tool', 'Tool'],
  ['transport', 'MCP transport'],
  ['sessionReused', 'Session reused'],
  ['isError', 'Tool error result'],
  ['model', 'Model'],
];

/** A node's log items, newest attempt last: inputs, outputs, error with code, attempt, MCP details. */
export function NodeLog({ nodeId, items }: { nodeId: string; items: LogItem[] }) {
  return (
    <section className="node-log" aria-labelledby="node-log-title" data-testid="node-log">
      <h2 id="node-log-title">
        Log of <code>{nodeId}</code>
      </h2>
      {items.length === 0 && <p className="muted">Nothing logged for this node yet.</p>}
      {items.map((item) => (
        <article key={item.seq} className={`log-item state-${item.status}`}>
          <h3>
            #{item.seq} {item.status} · attempt {item.attempt} · {formatDuration(item.durationMs)}
          </h3>
          <p className="muted">
            {formatTime(item.startedAt)} → {formatTime(item.finishedAt)}
          </p>
          {item.error && (
            <p className="problem">
              <strong data-testid="error-code">{item.error.code}</strong> {item.error.message}
            </p>
          )}
          <dl>
            {DETAILS.filter(([field]) => item[field] !== undefined).map(([field, label]) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd>{String(item[field])}</dd>
              </div>
            ))}
            {item.activeHandles.length > 0 && (
              <div>
                <dt>Handles taken</dt>
                <dd>{item.activeHandles.join(', ')}</dd>
              </div>
            )}
          </dl>
          <h4>Inputs{item.inputsTruncated && ' (truncated)'}</h4>
          <pre>{formatJson(item.inputs)}</pre>
          <h4>Outputs{item.truncated && ' (truncated)'}</h4>
          <pre>{formatJson(item.outputs)}</pre>
        </article>
      ))}
    </section>
  );
}
