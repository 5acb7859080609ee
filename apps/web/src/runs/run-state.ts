import type { components } from '#client';
import type { NodeStatus } from '../components/workflow-graph';
import type { RunEvent } from '../api/run-events';

export type Run = components['schemas']['Run'];
export type LogItem = components['schemas']['LogItem'];

export const ACTIVE_RUN_STATUSES: Run['status'][] = ['queued', 'running', 'waiting'];

/** What the run page knows of a run: the run, its log items by seq, the nodes running now. */
export interface RunState {
  run?: Run;
  items: LogItem[];
  running: Record<string, { attempt: number; at: string }>;
}

export const emptyRunState: RunState = { items: [], running: {} };

/** Folds one event of `GET /runs/:id/events` into the state (the stream replays, then goes live). */
export function applyEvent(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'run.started':
      return state.run ? { ...state, run: { ...state.run, status: 'running' } } : state;
    case 'node.started':
      return { ...state, running: { ...state.running, [event.nodeId]: { attempt: event.attempt, at: event.at } } };
    case 'node.finished': {
      if (state.items.some((item) => item.seq === event.item.seq)) return state;
      const running = { ...state.running };
      delete running[event.item.nodeId];
      return { ...state, running, items: [...state.items, event.item].sort((a, b) => a.seq - b.seq) };
    }
    case 'run.waiting':
    case 'run.finished':
      return { ...state, run: event.run, running: event.type === 'run.finished' ? {} : state.running };
  }
}

/**
 * Each node's state: its last log item (succeeded, failed, skipped, waiting, canceled), running
 * while a start has no finish, queued while the run is active and the node has not started.
 */
export function nodeStatuses(nodeIds: string[], state: RunState): Record<string, NodeStatus> {
  const statuses: Record<string, NodeStatus> = {};
  const active = state.run ? ACTIVE_RUN_STATUSES.includes(state.run.status) : false;
  for (const nodeId of nodeIds) {
    const last = state.items.filter((item) => item.nodeId === nodeId).at(-1);
    if (state.running[nodeId]) statuses[nodeId] = { state: 'running' };
    else if (last) statuses[nodeId] = { state: last.status, durationMs: last.durationMs, errorCode: last.error?.code };
    else if (active) statuses[nodeId] = { state: 'queued' };
  }
  return statuses;
}
