import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { Queue, QueueEvents } from 'bullmq';
import { basicTools, startFixtureServer, type FixtureServer, type FixtureTool } from '#mcp/testing';
import { QUEUES, redisConnectionOptions, refreshSchedulerId } from '#workflow/nest';
import { api } from '../support/http.js';
import { startRunStack } from '../support/runs.js';
import { startWorker, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';

interface ToolsetView {
  id: string;
  refreshIntervalMs: number | null;
}
interface Change {
  source: string;
  added: string[];
}
interface ErrorBody {
  code: string;
  errors: { path: string; code: string }[];
}

const EVERY_MS = 300;
const empty = { type: 'object', properties: {} };

describe('periodic refresh of a toolset (refreshIntervalMs)', () => {
  const tools: FixtureTool[] = basicTools();
  /** While set, each listing waits for it: a periodic refresh held in flight. */
  let hold: Promise<void> | undefined;
  let heldListings = 0;
  let stack: TestStack;
  let server: FixtureServer;
  let secondWorker: INestApplicationContext;
  let queue: Queue;
  let events: QueueEvents;
  const outcomes: string[] = [];

  beforeAll(async () => {
    [stack, server] = await Promise.all([
      startRunStack({ TOOLSET_REFRESH_MIN_INTERVAL_MS: String(EVERY_MS) }),
      startFixtureServer({
        tools,
        beforeListing: async () => {
          if (!hold) return;
          heldListings++;
          await hold;
        },
      }),
    ]);
    secondWorker = await startWorker(stack.config);
    const options = { connection: redisConnectionOptions(stack.config, true), prefix: stack.config.queuePrefix };
    queue = new Queue(QUEUES.toolsetRefresh.name, options);
    events = new QueueEvents(QUEUES.toolsetRefresh.name, options);
    events.on('completed', ({ returnvalue }) => outcomes.push(String(returnvalue)));
    await events.waitUntilReady();
  });
  afterAll(async () => {
    await events?.close();
    await queue?.close();
    await secondWorker?.close();
    await Promise.all([stack?.close(), server?.close()]);
  });

  const changes = async (id: string) => (await api<{ items: Change[] }>(stack.apiUrl, 'GET', `/toolsets/${id}/changes`)).body.items;
  const schedulers = async () => (await queue.getJobSchedulers(0, -1)).map((scheduler) => ({ key: scheduler.key, every: scheduler.every }));

  it('refuses an interval under TOOLSET_REFRESH_MIN_INTERVAL_MS with its path, before connecting', async () => {
    const res = await api<ErrorBody>(stack.apiUrl, 'POST', '/toolsets', { url: 'http://127.0.0.1:1/mcp', refreshIntervalMs: EVERY_MS - 1 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '/refreshIntervalMs', code: 'TOO_SMALL' }] });
    expect((await api<ErrorBody>(stack.apiUrl, 'POST', '/toolsets', { url: server.url, refreshIntervalMs: 1.5 })).status).toBe(400);
  });

  it('refreshes on one worker at a time, records what changed as scheduled, and stops when set to null', async () => {
    const created = await api<ToolsetView>(stack.apiUrl, 'POST', '/toolsets', { url: server.url, refreshIntervalMs: EVERY_MS });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body.refreshIntervalMs).toBe(EVERY_MS);
    // The API and two workers all set it: one schedule.
    expect(await schedulers()).toEqual([{ key: refreshSchedulerId(id), every: EVERY_MS }]);

    // A tool appears without any notification: the next interval finds it.
    tools.push({ name: 'late', inputSchema: empty, handler: () => ({ content: [{ type: 'text', text: 'late' }] }) });
    const [found] = await until(
      () => changes(id),
      (items) => items.length === 1,
      'a scheduled change',
    );
    expect(found).toMatchObject({ source: 'scheduled', added: ['late'], removed: [], changed: [] });

    // Hold one refresh's listing: the jobs of the next intervals, on either worker, find it locked and skip.
    let release = () => {};
    hold = new Promise<void>((resolve) => (release = resolve));
    const busyBefore = outcomes.filter((outcome) => outcome.includes('busy')).length;
    await until(
      async () => outcomes.filter((outcome) => outcome.includes('busy')).length - busyBefore,
      (busy) => busy >= 2,
      'two skipped intervals',
    );
    expect(heldListings).toBe(1);
    hold = undefined;
    release();

    const patched = await api<ToolsetView>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { refreshIntervalMs: null });
    expect(patched.status).toBe(200);
    expect(patched.body.refreshIntervalMs).toBeNull();
    expect(await schedulers()).toEqual([]);
    const tooOften = await api<ErrorBody>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { refreshIntervalMs: EVERY_MS - 100 });
    expect(tooOften.body.errors).toEqual([expect.objectContaining({ path: '/refreshIntervalMs', code: 'TOO_SMALL' })]);
  });

  it('drops the schedule with the toolset', async () => {
    const created = await api<ToolsetView>(stack.apiUrl, 'POST', '/toolsets', { url: server.url, refreshIntervalMs: 60_000 });
    expect(await schedulers()).toEqual([{ key: refreshSchedulerId(created.body.id), every: 60_000 }]);
    expect((await api(stack.apiUrl, 'DELETE', `/toolsets/${created.body.id}`)).status).toBe(204);
    expect(await schedulers()).toEqual([]);
  });
});
