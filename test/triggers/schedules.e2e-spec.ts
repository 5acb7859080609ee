import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { Cron } from 'croner';
import { as, createKey } from '../access/support.js';
import { api } from '../support/http.js';
import { createWorkflow, startRunStack, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { greetingFlow, storedCount, storedText } from './support.js';

interface ScheduleAnswer {
  id: string;
  cron: string | null;
  everyMs: number | null;
  timezone: string | null;
  inputs: Record<string, unknown>;
  version: number | 'latest';
  enabled: boolean;
  catchUp: string;
  overlap: string;
  nextRunAt: string | null;
  recentRuns: { id: string; status: string; scheduledFor?: string }[];
  code?: string;
  errors?: Problem[];
}

describe('schedules: the API', () => {
  let stack: TestStack;
  let workflowId: string;

  beforeAll(async () => {
    // No worker: nothing fires here, this is about what is saved and answered.
    stack = await startRunStack({}, { worker: false });
    workflowId = await createWorkflow(stack.apiUrl, greetingFlow);
  }, 60_000);
  afterAll(() => stack?.close());

  const post = (body: unknown, id = workflowId) => api<ScheduleAnswer>(stack.apiUrl, 'POST', `/workflows/${id}/schedules`, body);

  it('refuses what cannot fire, each problem at its path', async () => {
    const cases: [unknown, string, string][] = [
      [{ cron: 'every day', inputs: { who: 'a' } }, '/cron', 'CRON_INVALID'],
      [{ cron: '61 * * * *', inputs: { who: 'a' } }, '/cron', 'CRON_INVALID'],
      [{ cron: '0 9 * * *', timezone: 'Mars/Olympus', inputs: { who: 'a' } }, '/timezone', 'CRON_INVALID'],
      [{ cron: '0 9 * * *', everyMs: 5000, inputs: { who: 'a' } }, '/everyMs', 'CUSTOM'],
      [{ everyMs: 10, inputs: { who: 'a' } }, '/everyMs', 'TOO_SMALL'],
      [{ inputs: { who: 'a' } }, '/cron', 'CUSTOM'],
      [{ everyMs: 5000, inputs: {} }, '/inputs/who', 'INPUT_INVALID'],
      [{ everyMs: 5000, inputs: { who: 3 } }, '/inputs/who', 'INPUT_INVALID'],
      [{ everyMs: 5000, inputs: { who: 'a' }, version: 7 }, '/version', 'UNKNOWN_VERSION'],
      [{ everyMs: 5000, inputs: { who: 'a' }, every: 3 }, '/every', 'UNKNOWN_FIELD'],
    ];
    for (const [body, path, code] of cases) {
      const res = await post(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED' });
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path, code })]));
    }
    expect((await post({ everyMs: 5000, inputs: { who: 'a' } }, '6b02c0ffee0000000000beef')).status).toBe(404);
    expect(await storedCount(stack.config, 'schedules')).toBe(0);
  });

  it('saves a cron schedule in its timezone, answers its next firing as croner computes it, and changes, lists and deletes it', async () => {
    const created = await post({ cron: '0 9 * * 1-5', timezone: 'Europe/Berlin', inputs: { who: 'Ada', token: 's3cret' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      cron: '0 9 * * 1-5',
      everyMs: null,
      timezone: 'Europe/Berlin',
      inputs: { who: 'Ada', token: '***' },
      version: 'latest',
      enabled: true,
      catchUp: 'one',
      overlap: 'allow',
      recentRuns: [],
    });
    const expected = new Cron('0 9 * * 1-5', { timezone: 'Europe/Berlin' }).nextRun();
    expect(created.body.nextRunAt).toBe(expected?.toISOString());
    // The secret input is sealed at rest: the document holds *** and a sealed value, never the text.
    const id = created.body.id;
    const stored = await storedText(stack.config, 'schedules');
    expect(stored).toContain('***');
    expect(stored).not.toContain('s3cret');
    const path = `/workflows/${workflowId}/schedules/${id}`;

    const paused = await api<ScheduleAnswer>(stack.apiUrl, 'PATCH', path, { enabled: false, overlap: 'skip' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ enabled: false, overlap: 'skip', nextRunAt: null, inputs: { who: 'Ada', token: '***' } });
    const interval = await api<ScheduleAnswer>(stack.apiUrl, 'PATCH', path, { everyMs: 60_000, enabled: true });
    expect(interval.body).toMatchObject({ cron: null, everyMs: 60_000, timezone: null, enabled: true });
    expect(Date.parse(interval.body.nextRunAt ?? '')).toBeGreaterThan(Date.now() - 1000);
    const badPatch = await api<ScheduleAnswer>(stack.apiUrl, 'PATCH', path, { inputs: { who: 5 } });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.errors?.[0].path).toBe('/inputs/who');

    const list = await api<{ items: ScheduleAnswer[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      `/workflows/${workflowId}/schedules`,
    );
    expect(list.body.items.map((item) => item.id)).toContain(id);
    expect((await api(stack.apiUrl, 'GET', path)).status).toBe(200);
    expect((await api(stack.apiUrl, 'DELETE', path)).status).toBe(204);
    expect((await api(stack.apiUrl, 'GET', path)).status).toBe(404);
  });

  it('needs write to change schedules and a limited key sees only its workflows', async () => {
    const reader = await createKey(stack.apiUrl, { name: 'reader', scopes: ['read'] });
    const refused = await as(reader.key)(stack.apiUrl, 'POST', `/workflows/${workflowId}/schedules`, {
      everyMs: 5000,
      inputs: { who: 'a' },
    });
    expect(refused.status).toBe(403);
    const other = await createWorkflow(stack.apiUrl, { ...greetingFlow, name: 'other' });
    const limited = await createKey(stack.apiUrl, { name: 'limited', scopes: ['write'], workflows: [other] });
    const hidden = await as(limited.key)(stack.apiUrl, 'POST', `/workflows/${workflowId}/schedules`, {
      everyMs: 5000,
      inputs: { who: 'a' },
    });
    expect(hidden.status).toBe(404);
    const own = await as(limited.key)(stack.apiUrl, 'POST', `/workflows/${other}/schedules`, { everyMs: 5000, inputs: { who: 'a' } });
    expect(own.status).toBe(201);
  });

  it('deleting the workflow removes its schedules and their BullMQ job schedulers', async () => {
    const doomed = await createWorkflow(stack.apiUrl, { ...greetingFlow, name: 'doomed' });
    const created = await post({ everyMs: 3_600_000, inputs: { who: 'a' } }, doomed);
    expect(created.status).toBe(201);
    const redis = new Redis(stack.config.redisUrl);
    try {
      const key = `${stack.config.queuePrefix}:schedule-firings:repeat`;
      expect(await redis.zscore(key, `schedule-${created.body.id}`)).not.toBeNull();
      expect((await api(stack.apiUrl, 'DELETE', `/workflows/${doomed}`)).status).toBe(204);
      expect(await redis.zscore(key, `schedule-${created.body.id}`)).toBeNull();
    } finally {
      redis.disconnect();
    }
    expect(await storedCount(stack.config, 'schedules', { workflowId: doomed })).toBe(0);
  });
});
