import { describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import type { AppConfig, RunDoc, RunQueueProducer, RunRepository } from '#workflow/nest';
import { ActiveRuns } from './active-runs.js';
import type { RunEventsPublisher } from './run-events-publisher.js';
import type { RunSessions } from './run-sessions.js';
import { RunSweeper } from './run-sweeper.js';

const config = {
  recovery: { requeueAfterMs: 1000, sweepIntervalMs: 300 },
  limits: { runDeadlineMs: 60_000 },
} as unknown as AppConfig;

function sweeperOver(runs: RunDoc[], active: ActiveRuns, waits: RunDoc[] = [], liveWakes = new Set<string>()) {
  const writes: string[] = [];
  const asked: string[] = [];
  const repository = {
    cancelRequested: async () => [],
    unconfirmedActive: async () => runs,
    overdueWaits: async () => waits,
    confirm: async (id: Types.ObjectId) => void writes.push(`confirm ${String(id)}`),
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
  const sweeper = new RunSweeper(config, repository, queue, active, {} as RunSessions, {} as RunEventsPublisher);
  return { sweeper, writes, asked };
}

const runningRun = (): RunDoc =>
  ({
    _id: new Types.ObjectId(),
    status: 'running',
    workflowId: new Types.ObjectId(),
    version: 1,
    createdAt: new Date(),
  }) as unknown as RunDoc;

describe('RunSweeper', () => {
  it('leaves alone the runs this worker executes (no job check, no write), and confirms the others', async () => {
    const mine = runningRun();
    const theirs = runningRun();
    const active = new ActiveRuns();
    active.start(String(mine._id), 'job-mine');
    const { sweeper, writes, asked } = sweeperOver([mine, theirs], active);
    await sweeper.sweep();
    expect(asked).toEqual([String(theirs._id)]);
    expect(writes).toEqual([`confirm ${String(theirs._id)}`]);
  });

  it('schedules again the resume of an overdue waiting run whose wake job is gone, and only that one', async () => {
    const waitingRun = (): RunDoc =>
      ({
        ...runningRun(),
        status: 'waiting',
        inputRequest: { nodeId: 'pause', requestedAt: new Date('2026-11-26T10:00:00Z'), resumeAt: new Date('2026-11-26T10:00:02Z') },
      }) as unknown as RunDoc;
    const lost = waitingRun();
    const scheduled = waitingRun();
    const { sweeper, writes } = sweeperOver([], new ActiveRuns(), [lost, scheduled], new Set([String(scheduled._id)]));
    await sweeper.sweep();
    expect(writes).toEqual([`wake ${String(lost._id)} at 2026-11-26T10:00:02.000Z of pause 2026-11-26T10:00:00.000Z`]);
  });
});
