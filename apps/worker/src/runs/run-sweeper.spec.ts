import { describe, expect, it } from '@jest/globals';
import {
  newStoredId,
  type AppConfig,
  type RunCancellation,
  type RunQueueProducer,
  type RunRecord,
  type RunRepository,
} from '#workflow/nest';
import { ActiveRuns } from './active-runs.js';
import type { RunEventsPublisher } from './run-events-publisher.js';
import type { RunSessions } from './run-sessions.js';
import { RunSweeper } from './run-sweeper.js';

const config = {
  recovery: { requeueAfterMs: 1000, sweepIntervalMs: 300 },
  limits: { runDeadlineMs: 60_000 },
} as unknown as AppConfig;

function sweeperOver(runs: RunRecord[], active: ActiveRuns, waits: RunRecord[] = [], liveWakes = new Set<string>()) {
  const writes: string[] = [];
  const asked: string[] = [];
  const repository = {
    cancelRequested: async () => [],
    unconfirmedActive: async () => runs,
    overdueWaits: async () => waits,
    confirm: async (id: string) => void writes.push(`confirm ${id}`),
    failActive: async () => undefined,
  } as unknown as RunRepository;
  const queue = {
    jobState: async (runId: string) => {
      asked.push(runId);
      return 'live';
    },
    enqueue: async (runId: string) => void writes.push(`enqueue ${runId}`),
    removeJob: async () => undefined,
    rescheduleWake: async (runId: string, at: Date, pausedAt: Date) => {
      if (liveWakes.has(runId)) return false;
      writes.push(`wake ${runId} at ${at.toISOString()} of pause ${pausedAt.toISOString()}`);
      return true;
    },
  } as unknown as RunQueueProducer;
  const cancellation = { cancelOrphans: async () => 0, afterEnd: async () => undefined } as unknown as RunCancellation;
  const sweeper = new RunSweeper(config, repository, queue, active, {} as RunSessions, {} as RunEventsPublisher, cancellation);
  return { sweeper, writes, asked };
}

const runningRun = (): RunRecord =>
  ({
    id: newStoredId(),
    status: 'running',
    workflowId: newStoredId(),
    version: 1,
    createdAt: new Date(),
  }) as unknown as RunRecord;

describe('RunSweeper', () => {
  it('leaves alone the runs this worker executes (no job check, no write), and confirms the others', async () => {
    const mine = runningRun();
    const theirs = runningRun();
    const active = new ActiveRuns();
    active.start(mine.id, 'job-mine');
    const { sweeper, writes, asked } = sweeperOver([mine, theirs], active);
    await sweeper.sweep();
    expect(asked).toEqual([theirs.id]);
    expect(writes).toEqual([`confirm ${theirs.id}`]);
  });

  it('schedules again the resume of an overdue waiting run whose wake job is gone, and only that one', async () => {
    const waitingRun = (): RunRecord =>
      ({
        ...runningRun(),
        status: 'waiting',
        inputRequest: { nodeId: 'pause', requestedAt: new Date('2026-11-26T10:00:00Z'), resumeAt: new Date('2026-11-26T10:00:02Z') },
      }) as unknown as RunRecord;
    const lost = waitingRun();
    const scheduled = waitingRun();
    const { sweeper, writes } = sweeperOver([], new ActiveRuns(), [lost, scheduled], new Set([scheduled.id]));
    await sweeper.sweep();
    expect(writes).toEqual([`wake ${lost.id} at 2026-11-26T10:00:02.000Z of pause 2026-11-26T10:00:00.000Z`]);
  });
});
