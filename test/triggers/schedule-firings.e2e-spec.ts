import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppConfig } from '#workflow/nest';
import { spawnApi, type ApiProcess } from '../support/api-process.js';
import { authenticateAs, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { createWorkflow, FAST_RECOVERY } from '../support/runs.js';
import { dropTestData, startApi, testConfig } from '../support/stack.js';
import { spawnWorker, type WorkerProcess } from '../support/worker-process.js';
import { eventually, greetingFlow, storedRuns, type StoredTriggeredRun } from './support.js';

/** A firing taken more than this late was missed (the `catchUp: "none"` schedule skips it). */
const GRACE_MS = 1500;
const OUTAGE_MS = 4000;

describe('schedule firings across restarts: two API processes, two workers', () => {
  let config: AppConfig;
  let first: string;
  let closeFirst: () => Promise<void>;
  let second: ApiProcess;
  const workers: WorkerProcess[] = [];

  const worker = async () => {
    const started = await spawnWorker(config, { SCHEDULE_CATCH_UP_GRACE_MS: String(GRACE_MS) }, 60_000);
    workers.push(started);
    return started;
  };
  const stop = async (process: WorkerProcess, signal: NodeJS.Signals) => {
    process.kill(signal);
    await process.exited;
    workers.splice(workers.indexOf(process), 1);
  };

  beforeAll(async () => {
    config = testConfig(FAST_RECOVERY);
    const api1 = await startApi(config);
    first = api1.url;
    closeFirst = () => api1.app.close();
    second = await spawnApi(config, {}, 60_000);
    authenticateAs(second.url, keyOf(first));
  }, 120_000);
  afterAll(async () => {
    for (const process of workers.splice(0)) {
      process.kill('SIGKILL');
      await process.exited;
    }
    await second?.stop();
    await closeFirst?.();
    await dropTestData(config);
  });

  it('fires once per interval whichever process saved it or takes it, resumes after a crash with no gap, and catches up one missed firing (or none)', async () => {
    const workflowId = await createWorkflow(first, greetingFlow);
    const a = await worker();
    await worker();
    // Saved through one API process, the other schedule through the other: one job scheduler each all the same.
    const one = await api<{ id: string }>(first, 'POST', `/workflows/${workflowId}/schedules`, { everyMs: 1000, inputs: { who: 'one' } });
    const none = await api<{ id: string }>(second.url, 'POST', `/workflows/${workflowId}/schedules`, {
      everyMs: 1000,
      inputs: { who: 'none' },
      catchUp: 'none',
    });
    expect([one.status, none.status]).toEqual([201, 201]);
    const runsOf = (scheduleId: string) => storedRuns(config, { scheduleId });
    const atLeast = (scheduleId: string, count: number) =>
      eventually(async () => ((await runsOf(scheduleId)).length >= count ? true : undefined), 60_000, `${count} runs of ${scheduleId}`);
    await atLeast(one.body.id, 3);

    // A worker dies mid-stream; the other goes on and a new one joins: no firing is lost or doubled.
    await stop(a, 'SIGKILL');
    await worker();
    const beforeOutage = (await runsOf(one.body.id)).length;
    await atLeast(one.body.id, beforeOutage + 3);

    // Everything down for a while: firings due meanwhile wait in Redis as one pending firing per schedule.
    const downAt = Date.now();
    for (const process of [...workers]) await stop(process, 'SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const restartAt = Date.now();
    await worker();
    const upAt = Date.now();
    const afterOutage = (await runsOf(one.body.id)).length;
    await atLeast(one.body.id, afterOutage + 3);
    const noneBefore = (await runsOf(none.body.id)).length;
    await atLeast(none.body.id, noneBefore + 2);

    const dueTimes = (runs: StoredTriggeredRun[]) => runs.map((run) => run.scheduledFor?.getTime() ?? NaN).sort((x, y) => x - y);
    for (const scheduleId of [one.body.id, none.body.id]) {
      const runs = await runsOf(scheduleId);
      expect(runs.every((run) => run.source === 'schedule')).toBe(true);
      const due = dueTimes(runs);
      // No double: one run per firing, every firing on the same one-second grid.
      expect(new Set(due).size).toBe(due.length);
      expect(due.every((time) => (time - due[0]) % 1000 === 0)).toBe(true);
    }
    // No skip while a worker was up ("one" runs even the firing a killed worker held, late): every missing second lies in the outage.
    const due = dueTimes(await runsOf(one.body.id));
    for (let slot = due[0]; slot <= due.at(-1)!; slot += 1000) {
      if (!due.includes(slot)) expect({ slot, inOutage: slot > downAt - 1000 && slot <= upAt + 1000 }).toEqual({ slot, inOutage: true });
    }
    // The documented rule for the outage: of the firings due while nothing was up, "one" ran exactly one (late), "none" none.
    const caughtUp = (runs: StoredTriggeredRun[]) =>
      runs.filter(
        (run) => run.createdAt.getTime() >= restartAt && run.createdAt.getTime() - (run.scheduledFor?.getTime() ?? 0) > OUTAGE_MS / 2,
      );
    expect(caughtUp(await runsOf(one.body.id))).toHaveLength(1);
    expect(caughtUp(await runsOf(none.body.id))).toHaveLength(0);

    // Every run ends, and the schedule lists its last ones.
    const answer = await api<{ recentRuns: { status: string }[]; nextRunAt: string }>(
      second.url,
      'GET',
      `/workflows/${workflowId}/schedules/${one.body.id}`,
    );
    expect(answer.body.recentRuns).toHaveLength(5);
    expect(Date.parse(answer.body.nextRunAt)).toBeGreaterThan(upAt);
    await api(first, 'DELETE', `/workflows/${workflowId}/schedules/${one.body.id}`);
    await api(first, 'DELETE', `/workflows/${workflowId}/schedules/${none.body.id}`);
    const settled = await eventually(
      async () => {
        const runs = await storedRuns(config, { workflowId: { $exists: true } });
        return runs.every((run) => run.status === 'succeeded') ? runs : undefined;
      },
      30_000,
      'every scheduled run succeeded',
    );
    expect(settled.length).toBeGreaterThan(10);
  }, 240_000);
});
