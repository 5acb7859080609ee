import { describe, expect, it } from '@jest/globals';
import type { ExecutionRecord } from '#workflow';
import type { RunRecord, RunStreamEvent } from '#workflow/nest';
import { newStoredId, toLogItem, toRunView } from '#workflow/nest';
import { RunEventStream, type RunStateSource } from './run-event-stream.js';

const runId = newStoredId();
const T0 = Date.parse('2026-01-01T00:00:00.000Z');

function record(
  seq: number,
  nodeId: string,
  startedAt: number,
  finishedAt: number,
  status: ExecutionRecord['status'] = 'succeeded',
): ExecutionRecord {
  return {
    runId,
    seq,
    nodeId,
    type: 'template',
    status,
    attempt: status === 'skipped' ? 0 : 1,
    startedAt,
    finishedAt,
    durationMs: finishedAt - startedAt,
    inputs: {},
    outputs: {},
    activeHandles: [],
  };
}

function runRecord(status: RunRecord['status'], claims = 1): RunRecord {
  return {
    id: runId,
    workflowId: newStoredId(),
    version: 1,
    status,
    inputs: {},
    createdAt: new Date(T0),
    startedAt: new Date(T0 + 1),
    ...(status !== 'running' && { finishedAt: new Date(T0 + 100) }),
    claims,
    checkedAt: new Date(T0),
    finalExecutions: () => [],
  };
}

/** A MongoDB stand-in the test fills as the "worker" progresses. */
function fakeSource(): RunStateSource & { run: () => Promise<RunRecord>; state: { run: RunRecord; records: ExecutionRecord[] } } {
  const state = { run: runRecord('running'), records: [] as ExecutionRecord[] };
  return {
    state,
    run: async () => state.run,
    executionsAfter: async (seq) => state.records.filter((item) => item.seq > seq),
  };
}

function harness() {
  const source = fakeSource();
  const sent: RunStreamEvent[] = [];
  let ended = false;
  const stream = new RunEventStream(
    runId,
    source,
    (event) => sent.push(event),
    () => (ended = true),
  );
  const labels = () =>
    sent.map((event) => `${event.type}${'nodeId' in event ? `:${event.nodeId}` : 'item' in event ? `:${event.item.seq}` : ''}`);
  return { source, stream, sent, labels, ended: () => ended };
}

const at = (ms: number) => new Date(ms).toISOString();
const finishedEvent = (item: ExecutionRecord): Extract<RunStreamEvent, { type: 'node.finished' }> => ({
  type: 'node.finished',
  runId,
  at: at(item.finishedAt),
  item: toLogItem(item),
});
const startedEvent = (nodeId: string, ms: number, running: string[] = [], runningAt = ms): RunStreamEvent => ({
  type: 'node.started',
  runId,
  at: at(ms),
  nodeId,
  nodeType: 'template',
  attempt: 1,
  ...(running.length > 0 && { running: running.map((id) => ({ nodeId: id, nodeType: 'template', attempt: 1, at: at(runningAt) })) }),
});

describe('RunEventStream', () => {
  it('replays by time (parallel nodes interleave as they ran), then ends with run.finished', async () => {
    const { source, stream, labels, ended } = harness();
    source.state.records = [
      record(1, 'start', T0 + 2, T0 + 3),
      record(2, 'a', T0 + 4, T0 + 20),
      record(3, 'b', T0 + 5, T0 + 30),
      record(4, 'skip', T0 + 31, T0 + 31, 'skipped'),
    ];
    source.state.run = runRecord('succeeded');
    await stream.replay();
    expect(labels()).toEqual([
      'run.started',
      'node.started:start',
      'node.finished:1',
      'node.started:a',
      'node.started:b',
      'node.finished:2',
      'node.finished:3',
      'node.finished:4',
      'run.finished',
    ]);
    expect(ended()).toBe(true);
  });

  it('drops live events the replay already covered, and delivers the rest once', async () => {
    const { source, stream, labels } = harness();
    const a = record(1, 'a', T0 + 2, T0 + 10);
    source.state.records = [a];
    // Published after the subscription but before the replay read MongoDB: arrive during the replay.
    const late = [
      startedEvent('a', T0 + 2),
      finishedEvent(a),
      { type: 'run.started', runId, at: at(T0 + 1), claim: 1, resumedExecutions: 0 } as RunStreamEvent,
    ];
    const replayed = stream.replay();
    for (const event of late) void stream.live(event);
    await replayed;
    await stream.live(startedEvent('b', T0 + 11));
    expect(labels()).toEqual(['run.started', 'node.started:a', 'node.finished:1', 'node.started:b']);
  });

  it('fills a gap in live node.finished events from MongoDB, in seq order', async () => {
    const { source, stream, labels } = harness();
    await stream.replay();
    const records = [record(1, 'a', T0 + 2, T0 + 3), record(2, 'b', T0 + 4, T0 + 5), record(3, 'c', T0 + 6, T0 + 7)];
    source.state.records = records;
    await stream.live(finishedEvent(records[2]));
    await stream.live(finishedEvent(records[1]));
    expect(labels()).toEqual([
      'run.started',
      'node.started:a',
      'node.finished:1',
      'node.started:b',
      'node.finished:2',
      'node.started:c',
      'node.finished:3',
    ]);
  });

  it('rebuilds a node.started published before the connection listened, ahead of its live node.finished', async () => {
    const { source, stream, labels } = harness();
    await stream.replay();
    const first = record(1, 'start', T0 + 2, T0 + 3);
    source.state.records = [first];
    await stream.live(finishedEvent(first));
    await stream.live(startedEvent('a', T0 + 4));
    const a = record(2, 'a', T0 + 4, T0 + 9);
    source.state.records.push(a);
    await stream.live(finishedEvent(a));
    expect(labels()).toEqual(['run.started', 'node.started:start', 'node.finished:1', 'node.started:a', 'node.finished:2']);
  });

  it('reads run.started from MongoDB when the replay came before the claim and its message before the subscription', async () => {
    const { source, stream, labels } = harness();
    source.state.run = { ...runRecord('running', 0), startedAt: undefined };
    await stream.replay();
    expect(labels()).toEqual([]);
    const first = record(1, 'start', T0 + 2, T0 + 3);
    source.state.run = runRecord('running');
    source.state.records = [first];
    await stream.live(startedEvent('start', T0 + 2));
    await stream.live(finishedEvent(first));
    expect(labels()).toEqual(['run.started', 'node.started:start', 'node.finished:1']);
  });

  it('puts run.started first when the worker claimed the run between the replay reading it and reading its records', async () => {
    const { source, stream, labels } = harness();
    const unclaimed = { ...runRecord('running', 0), startedAt: undefined };
    const reads = [unclaimed, runRecord('running')];
    source.run = async () => reads.shift() ?? runRecord('running');
    source.state.records = [record(1, 'start', T0 + 2, T0 + 3)];
    await stream.replay();
    await stream.live({ type: 'run.started', runId, at: at(T0 + 1), claim: 1, resumedExecutions: 0 });
    expect(labels()).toEqual(['run.started', 'node.started:start', 'node.finished:1']);
  });

  it('announces a resume (a later claim) but not the same start twice', async () => {
    const { stream, labels } = harness();
    await stream.replay();
    await stream.live({ type: 'run.started', runId, at: at(T0 + 1), claim: 1, resumedExecutions: 0 });
    await stream.live({ type: 'run.started', runId, at: at(T0 + 50), claim: 2, resumedExecutions: 3 });
    expect(labels()).toEqual(['run.started', 'run.started']);
  });

  it('ends when a periodic check finds the run finished without a message (Redis away)', async () => {
    const { source, stream, labels, ended } = harness();
    await stream.replay();
    source.state.records = [record(1, 'a', T0 + 2, T0 + 3)];
    source.state.run = runRecord('failed');
    await stream.check();
    expect(labels()).toEqual(['run.started', 'node.started:a', 'node.finished:1', 'run.finished']);
    expect(ended()).toBe(true);
    await stream.live(startedEvent('z', T0 + 99));
    expect(labels()).toHaveLength(4);
  });

  it('announces at once the start of a node that was running when it subscribed (between two parallel starts)', async () => {
    const { source, stream, labels, sent } = harness();
    source.state.records = [record(1, 'start', T0 + 2, T0 + 3)];
    // The worker started a at T0+4 (before this connection listened), then b at T0+5.
    await stream.replay();
    await stream.live(startedEvent('b', T0 + 5, ['a'], T0 + 4));
    expect(labels()).toEqual(['run.started', 'node.started:start', 'node.finished:1', 'node.started:a', 'node.started:b']);
    expect(sent.every((event) => !('running' in event))).toBe(true);
    // a's own record later: its start went out already, not again.
    const a = record(2, 'a', T0 + 4, T0 + 20);
    source.state.records.push(a);
    await stream.live({ ...finishedEvent(a), running: [{ nodeId: 'b', nodeType: 'template', attempt: 1, at: at(T0 + 5) }] });
    expect(labels().slice(5)).toEqual(['node.finished:2']);
  });

  it('puts the missed starts of running nodes before a live node.finished, as the replay orders them', async () => {
    const { source, stream, labels } = harness();
    source.state.records = [record(1, 'start', T0 + 2, T0 + 3)];
    await stream.replay();
    // a (T0+4) and b (T0+5) both started before the connection listened; b finishes first.
    const b = record(2, 'b', T0 + 5, T0 + 9);
    source.state.records.push(b);
    await stream.live({ ...finishedEvent(b), running: [{ nodeId: 'a', nodeType: 'template', attempt: 1, at: at(T0 + 4) }] });
    const live = labels();
    expect(live).toEqual(['run.started', 'node.started:start', 'node.finished:1', 'node.started:a', 'node.started:b', 'node.finished:2']);
    const a = record(3, 'a', T0 + 4, T0 + 12);
    source.state.records.push(a);
    source.state.run = runRecord('succeeded');
    await stream.live(finishedEvent(a));
    await stream.live({ type: 'run.finished', runId, at: at(T0 + 100), run: toRunView(runRecord('succeeded')) });
    const replayed = harness();
    Object.assign(replayed.source.state, source.state);
    await replayed.stream.replay();
    expect(replayed.labels()).toEqual(labels());
  });

  it('sends live node.finished events ahead of MongoDB (records not written yet), in seq order', async () => {
    const { source, stream, labels } = harness();
    await stream.replay();
    const [start, t] = [record(1, 'start', T0 + 2, T0 + 2), record(2, 't', T0 + 2, T0 + 3)];
    await stream.live(startedEvent('start', T0 + 2));
    await stream.live(finishedEvent(start));
    // t's node.started was lost: rebuilt from its item, MongoDB still holds nothing.
    await stream.live(finishedEvent(t));
    expect(source.state.records).toEqual([]);
    expect(labels()).toEqual(['run.started', 'node.started:start', 'node.finished:1', 'node.started:t', 'node.finished:2']);
  });

  it('holds a live node.finished after a gap until the missing one is known, then sends both in order', async () => {
    const { stream, labels } = harness();
    await stream.replay();
    const [a, b] = [record(1, 'a', T0 + 2, T0 + 3), record(2, 'b', T0 + 2, T0 + 4)];
    await stream.live(finishedEvent(b));
    expect(labels()).toEqual(['run.started']);
    await stream.live(finishedEvent(a));
    expect(labels()).toEqual(['run.started', 'node.started:a', 'node.started:b', 'node.finished:1', 'node.finished:2']);
  });

  it('replays a start in the same millisecond as the finish before it after that finish', async () => {
    const { source, stream, labels } = harness();
    source.state.records = [
      record(1, 'start', T0 + 2, T0 + 2),
      record(2, 'a', T0 + 2, T0 + 5),
      record(3, 'join', T0 + 5, T0 + 5),
      record(4, 'end', T0 + 5, T0 + 5),
    ];
    source.state.run = runRecord('succeeded');
    await stream.replay();
    expect(labels()).toEqual([
      'run.started',
      'node.started:start',
      'node.finished:1',
      'node.started:a',
      'node.finished:2',
      'node.started:join',
      'node.finished:3',
      'node.started:end',
      'node.finished:4',
      'run.finished',
    ]);
  });

  it('places the missed starts of running nodes among what a gap brings from MongoDB', async () => {
    const { source, stream, labels } = harness();
    // Subscribed after start finished (its record not written yet) and a and g started.
    await stream.replay();
    const [start, g] = [record(1, 'start', T0 + 2, T0 + 2), record(2, 'g', T0 + 3, T0 + 9)];
    source.state.records = [start, g];
    await stream.live({ ...finishedEvent(g), running: [{ nodeId: 'a', nodeType: 'template', attempt: 1, at: at(T0 + 3) }] });
    expect(labels()).toEqual([
      'run.started',
      'node.started:start',
      'node.finished:1',
      'node.started:g',
      'node.started:a',
      'node.finished:2',
    ]);
  });
});
