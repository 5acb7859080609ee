import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, waitUntil, type FixtureServer } from '#mcp/testing';
import { Redis } from 'ioredis';
import { runCancelChannel, type RunStreamEvent, type RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  allLogs,
  createWorkflow,
  expectNoSessions,
  readEvents,
  registerToolset,
  runToEnd,
  startRun,
  startRunStack,
  waitForRun,
} from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

const slowNode = (id: string, ts: string, steps: number, stepMs: number) => ({
  id,
  type: 'mcpTool',
  config: { toolsetId: ts, tool: 'slow' },
  inputs: { steps: { value: steps }, stepMs: { value: stepMs } },
});

function chain(name: string, nodes: Record<string, unknown>[]) {
  const all = [{ id: 'start', type: 'start' }, ...nodes, { id: 'end', type: 'end', inputs: {} }];
  return { name, nodes: all, edges: all.slice(1).map((node, index) => ({ source: all[index].id, target: node.id })) };
}

const shape = (events: RunStreamEvent[]) =>
  events.map((event) => `${event.type}:${'nodeId' in event ? event.nodeId : 'item' in event ? event.item.nodeId : ''}`);

describe('runs: cancel, idempotency, retry, wait, events', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let ts: string;

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: basicTools() });
    ts = await registerToolset(stack.apiUrl, fixture.url);
  });
  afterEach(async () => {
    await expectNoSessions(fixture);
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it('cancels a run during a slow call: the server receives the cancellation, the run ends canceled', async () => {
    const id = await createWorkflow(stack.apiUrl, chain('cancel me', [slowNode('slow', ts, 100, 100)]));
    const callsBefore = fixture.calls('slow');
    const cancellationsBefore = fixture.cancellations();
    const accepted = await startRun(stack.apiUrl, id);
    await waitUntil(() => fixture.calls('slow') > callsBefore, 10_000, 'the slow call to start');
    const began = Date.now();
    const canceled = await api<RunView>(stack.apiUrl, 'POST', `/runs/${accepted.body.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', error: { code: 'RUN_CANCELED' }, cancelRequestedAt: expect.any(String) });
    expect(Date.now() - began).toBeLessThan(3000);
    await waitUntil(() => fixture.cancellations() > cancellationsBefore, 3000, 'notifications/cancelled on the server');
    const logs = await allLogs(stack.apiUrl, accepted.body.id);
    expect(logs.find((item) => item.nodeId === 'slow')).toMatchObject({ status: 'canceled' });
    expect(logs.find((item) => item.nodeId === 'end')).toBeUndefined();
    // Canceling again is harmless; a finished run cannot be canceled.
    expect((await api(stack.apiUrl, 'POST', `/runs/${accepted.body.id}/cancel`)).status).toBe(200);
    const done = await runToEnd(stack.apiUrl, await createWorkflow(stack.apiUrl, chain('quick', [])));
    const refused = await api<{ code: string }>(stack.apiUrl, 'POST', `/runs/${done.id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('RUN_FINISHED');
    expect((await api(stack.apiUrl, 'POST', '/runs/0123456789abcdef01234567/cancel')).status).toBe(404);
  });

  it('replays an Idempotency-Key: one run per key and workflow, 409 when the key comes back with another body', async () => {
    const id = await createWorkflow(
      stack.apiUrl,
      chain('idempotent', [{ id: 'note', type: 'template', inputs: { text: { template: 'hi' } } }]),
    );
    const headers = { 'idempotency-key': 'order-1234' };
    const first = await startRun(stack.apiUrl, id, { inputs: { a: 1 } }, '', headers);
    expect(first.status).toBe(202);
    const concurrent = await Promise.all([1, 2, 3].map(() => startRun(stack.apiUrl, id, { inputs: { a: 1 } }, '', headers)));
    for (const res of concurrent) {
      expect(res.body.id).toBe(first.body.id);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
    }
    const other = await startRun(stack.apiUrl, id, { inputs: { a: 2 } }, '', headers);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const fresh = await startRun(stack.apiUrl, id, { inputs: { a: 1 } }, '', { 'idempotency-key': 'order-1235' });
    expect(fresh.body.id).not.toBe(first.body.id);
    expect((await startRun(stack.apiUrl, id, {}, '', { 'idempotency-key': 'has space' })).status).toBe(400);
    await waitForRun(stack.apiUrl, first.body.id);
    await waitForRun(stack.apiUrl, fresh.body.id);
    const runs = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${id}`);
    expect(runs.body.items).toHaveLength(2);
    // After the run finished, the replay returns its final state.
    const late = await startRun(stack.apiUrl, id, { inputs: { a: 1 } }, '', headers);
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ id: first.body.id, status: 'succeeded' });
  });

  it('retries a finished run as a new run with the same inputs; refuses while it runs', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'fails',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'boom', type: 'mcpTool', config: { toolsetId: ts, tool: 'fail' }, inputs: { reason: { ref: 'start.reason' } } },
      ],
      edges: [{ source: 'start', target: 'boom' }],
    });
    const failed = await runToEnd(stack.apiUrl, id, { reason: 'try later' });
    expect(failed.status).toBe('failed');
    const retried = await api<RunView>(stack.apiUrl, 'POST', `/runs/${failed.id}/retry?wait=10000`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({
      retryOf: failed.id,
      inputs: { reason: 'try later' },
      workflowId: id,
      version: 1,
      status: 'failed',
    });
    expect(retried.body.id).not.toBe(failed.id);

    const slow = await startRun(stack.apiUrl, await createWorkflow(stack.apiUrl, chain('slow', [slowNode('slow', ts, 20, 50)])));
    const busy = await api<{ code: string }>(stack.apiUrl, 'POST', `/runs/${slow.body.id}/retry`);
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('RUN_NOT_FINISHED');
    await waitForRun(stack.apiUrl, slow.body.id);
  });

  it('answers ?wait with 202 and the current state when the run outlasts the wait', async () => {
    const id = await createWorkflow(stack.apiUrl, chain('outlasts', [slowNode('slow', ts, 10, 100)]));
    const began = Date.now();
    const res = await startRun(stack.apiUrl, id, {}, '?wait=300');
    expect(res.status).toBe(202);
    expect(['queued', 'running']).toContain(res.body.status);
    expect(Date.now() - began).toBeGreaterThanOrEqual(290);
    expect((await waitForRun(stack.apiUrl, res.body.id)).status).toBe('succeeded');
  });

  it('streams events in order while the run goes, and replays the same story afterwards', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'events',
      nodes: [
        { id: 'start', type: 'start' },
        slowNode('a', ts, 3, 250),
        slowNode('b', ts, 5, 250),
        { id: 'join', type: 'template', inputs: { text: { template: '{{a.text}} / {{b.text}}' } } },
        { id: 'end', type: 'end', inputs: { text: { ref: 'join.text' } } },
      ],
      edges: [
        { source: 'start', target: 'a' },
        { source: 'start', target: 'b' },
        { source: 'a', target: 'join' },
        { source: 'b', target: 'join' },
        { source: 'join', target: 'end' },
      ],
    });
    const accepted = await startRun(stack.apiUrl, id);
    const live = await readEvents(`${stack.apiUrl}/runs/${accepted.body.id}/events`);
    const replayed = await readEvents(`${stack.apiUrl}/runs/${accepted.body.id}/events`);
    for (const events of [live, replayed]) {
      expect(events[0].type).toBe('run.started');
      expect(events.at(-1)).toMatchObject({
        type: 'run.finished',
        run: { status: 'succeeded', outputs: { text: expect.stringContaining('done after 3 steps') } },
      });
      const finished = events.filter(
        (event): event is Extract<RunStreamEvent, { type: 'node.finished' }> => event.type === 'node.finished',
      );
      expect(finished.map((event) => event.item.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(finished.map((event) => event.item.nodeId)).toEqual(['start', 'a', 'b', 'join', 'end']);
      for (const event of finished) {
        const startedAt = events.findIndex((other) => other.type === 'node.started' && other.nodeId === event.item.nodeId);
        expect(startedAt).toBeGreaterThan(0);
        expect(startedAt).toBeLessThan(events.indexOf(event));
      }
      expect(events.filter((event) => event.type === 'node.started')).toHaveLength(5);
      expect(events.filter((event) => event.type === 'run.started')).toHaveLength(1);
    }
    expect(shape(replayed)).toEqual(shape(live));
    expect((await api(stack.apiUrl, 'GET', '/runs/0123456789abcdef01234567/events')).status).toBe(404);
  });

  it('tells a stream that subscribes while nodes run of their starts at once, in the order the replay shows', async () => {
    // a and g start together; the stream subscribes while they run; b starts once g is done.
    const id = await createWorkflow(stack.apiUrl, {
      name: 'late listener',
      nodes: [
        { id: 'start', type: 'start' },
        slowNode('a', ts, 4, 250),
        slowNode('g', ts, 2, 250),
        slowNode('b', ts, 2, 250),
        { id: 'end', type: 'end', inputs: { a: { ref: 'a.text' }, b: { ref: 'b.text' } } },
      ],
      edges: [
        { source: 'start', target: 'a' },
        { source: 'start', target: 'g' },
        { source: 'g', target: 'b' },
        { source: 'a', target: 'end' },
        { source: 'b', target: 'end' },
      ],
    });
    const callsBefore = fixture.calls('slow');
    const accepted = await startRun(stack.apiUrl, id);
    await waitUntil(() => fixture.calls('slow') >= callsBefore + 2, 10_000, 'a and g to start');
    const live = await readEvents(`${stack.apiUrl}/runs/${accepted.body.id}/events`);
    const replayed = await readEvents(`${stack.apiUrl}/runs/${accepted.body.id}/events`);
    expect(shape(live)).toEqual(shape(replayed));
    // a's start is told before g finishes (it was known then), not only when a finishes.
    const order = shape(live);
    expect(order.indexOf('node.started:a')).toBeLessThan(order.indexOf('node.finished:g'));
    expect(order.indexOf('node.started:g')).toBeLessThan(order.indexOf('node.finished:g'));
    expect(live.at(-1)).toMatchObject({ type: 'run.finished', run: { status: 'succeeded' } });
  });
});

describe('runs: cancel before a worker takes the run, and the run deadline', () => {
  let apiOnly: TestStack;
  let deadlined: TestStack;
  let fixture: FixtureServer;

  beforeAll(async () => {
    apiOnly = await startRunStack({}, { worker: false });
    deadlined = await startRunStack({ RUN_DEADLINE_MS: '1500' });
    fixture = await startFixtureServer({ tools: basicTools() });
  });
  afterAll(async () => {
    await apiOnly.close();
    await deadlined.close();
    await fixture.close();
  });

  it('ends a queued run at once, and its event stream with it; workers are told too (a claim racing the cancel)', async () => {
    const id = await createWorkflow(apiOnly.apiUrl, chain('never runs', []));
    const accepted = await startRun(apiOnly.apiUrl, id);
    expect(accepted.status).toBe(202);
    const events = readEvents(`${apiOnly.apiUrl}/runs/${accepted.body.id}/events`);
    const workerChannel = new Redis(apiOnly.config.redisUrl);
    const told: string[] = [];
    try {
      workerChannel.on('message', (_channel: string, runId: string) => told.push(runId));
      await workerChannel.subscribe(runCancelChannel(apiOnly.config.queuePrefix));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await api<RunView>(apiOnly.apiUrl, 'POST', `/runs/${accepted.body.id}/cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'canceled', startedAt: null, error: { code: 'RUN_CANCELED' } });
      expect((await events).map((event) => event.type)).toEqual(['run.finished']);
      await waitUntil(() => told.includes(accepted.body.id), 3000, "the cancel message on the workers' channel");
    } finally {
      workerChannel.disconnect();
    }
  });

  it('fails a run that passes RUN_DEADLINE_MS, aborting the call in flight', async () => {
    const ts = await registerToolset(deadlined.apiUrl, fixture.url);
    const id = await createWorkflow(deadlined.apiUrl, chain('too slow', [slowNode('slow', ts, 100, 100)]));
    const cancellationsBefore = fixture.cancellations();
    const run = await runToEnd(deadlined.apiUrl, id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'RUN_DEADLINE_EXCEEDED' } });
    expect(run.durationMs).toBeGreaterThanOrEqual(1400);
    expect(run.durationMs).toBeLessThan(4000);
    await waitUntil(() => fixture.cancellations() > cancellationsBefore, 3000, 'the aborted call to reach the server');
    await expectNoSessions(fixture);
  });
});
