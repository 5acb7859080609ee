import { formatDuration, formatJson, formatTime } from '../components/format';
import { bodyNodeOf, groupByItem, groupStatus, type ItemGroup } from './map-items';
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

/** Groups open at first: a map over a few items shows them all, a long one lets the person open what they look for. */
const OPEN_GROUPS = 5;

/**
 * A node's log items, newest attempt last: inputs, outputs, error with code, attempt, MCP details.
 * For a map, its body's executions follow, grouped by item ("item 0", "item 1"…; a map inside the
 * body nests its items under the outer item's).
 */
export function NodeLog({ nodeId, items }: { nodeId: string; items: LogItem[] }) {
  const own = items.filter((item) => item.nodeId === nodeId);
  const groups = groupByItem(items.filter((item) => item.nodeId !== nodeId));
  return (
    <section className="node-log" aria-labelledby="node-log-title" data-testid="node-log">
      <h2 id="node-log-title">
        Log of <code>{nodeId}</code>
      </h2>
      {items.length === 0 && <p className="muted">Nothing logged for this node yet.</p>}
      {own.map((item) => (
        <LogEntry key={item.seq} item={item} />
      ))}
      {groups.length > 0 && (
        <>
          <h3>Items ({groups.length})</h3>
          <ItemGroups groups={groups} open={groups.length <= OPEN_GROUPS} />
        </>
      )}
    </section>
  );
}

function ItemGroups({ groups, open }: { groups: ItemGroup[]; open: boolean }) {
  return (
    <>
      {groups.map((group) => (
        <details key={group.index} className="map-item" open={open} data-item-path={group.path.join('.')}>
          <summary>
            item {group.index} · <span className={`badge status-${groupStatus(group)}`}>{groupStatus(group)}</span>
          </summary>
          {group.items.map((item) => (
            <LogEntry key={item.seq} item={item} label={bodyNodeOf(item)} />
          ))}
          {group.groups.length > 0 && <ItemGroups groups={group.groups} open={group.groups.length <= OPEN_GROUPS} />}
        </details>
      ))}
    </>
  );
}

function LogEntry({ item, label }: { item: LogItem; label?: string }) {
  return (
    <article className={`log-item state-${item.status}`} data-log-node={item.nodeId}>
      <h3>
        #{item.seq} {label && <code>{label}</code>} {item.status} · attempt {item.attempt} · {formatDuration(item.durationMs)}
        {item.replayed && ' · replayed'}
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
        {DETAILS.filter(([field]) => item[field] !== undefined).map(([field, title]) => (
          <div key={field}>
            <dt>{title}</dt>
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
      <pre tabIndex={0}>{formatJson(item.inputs)}</pre>
      <h4>Outputs{item.truncated && ' (truncated)'}</h4>
      <pre tabIndex={0}>{formatJson(item.outputs)}</pre>
    </article>
  );
}
