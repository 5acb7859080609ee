import { useState, type FormEvent } from 'react';
import { connect, outputHandles, type Draft, type NodeType } from './workflow-draft';

/** Connecting without a mouse: choose an output (node and handle) and a node to go to. */
export function ConnectForm({ draft, types, onChange }: { draft: Draft; types: NodeType[]; onChange(draft: Draft): void }) {
  const outputs = draft.nodes.flatMap((node) => outputHandles(node, types).map((handle) => `${node.id}:${handle}`));
  const targets = draft.nodes.filter((node) => node.type !== 'start').map((node) => node.id);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const [source, handle] = (from || outputs[0] || '').split(':');
    const target = to || targets[0];
    if (!source || !target) return;
    onChange(connect(draft, { source, target, ...(handle && handle !== 'out' ? { sourceHandle: handle } : {}) }));
  };
  return (
    <form className="connect-form" onSubmit={submit} aria-label="Connect nodes">
      <h2>Connect</h2>
      <div className="actions">
        <div className="field">
          <label htmlFor="connect-from">From</label>
          <select id="connect-from" value={from} onChange={(event) => setFrom(event.target.value)}>
            {outputs.map((output) => (
              <option key={output}>{output}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="connect-to">To</label>
          <select id="connect-to" value={to} onChange={(event) => setTo(event.target.value)}>
            {targets.map((target) => (
              <option key={target}>{target}</option>
            ))}
          </select>
        </div>
        <button type="submit">Connect</button>
      </div>
    </form>
  );
}
