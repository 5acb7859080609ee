import { describe, expect, it } from '@jest/globals';
import type { ToolCallRecord, ToolCallRepository } from '#workflow/nest';
import { USAGE_BATCH_MS, UsageRecords } from './usage-records.js';

const call = (tool: string): ToolCallRecord => ({ toolsetId: 't', tool, at: new Date(), durationMs: 1, source: 'run', runId: 'r' });

function recorder() {
  const inserts: string[][] = [];
  const repository = { recordMany: async (calls: ToolCallRecord[]) => void inserts.push(calls.map((c) => c.tool)) };
  return { inserts, usage: new UsageRecords(repository as unknown as ToolCallRepository) };
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('UsageRecords', () => {
  it('writes the calls of one batch window in one insert', async () => {
    const { inserts, usage } = recorder();
    usage.record(call('a'));
    usage.record(call('b'));
    expect(inserts).toEqual([]);
    await settle(USAGE_BATCH_MS + 50);
    expect(inserts).toEqual([['a', 'b']]);
    usage.record(call('c'));
    await usage.flush();
    expect(inserts).toEqual([['a', 'b'], ['c']]);
  });

  it('once the worker stops, writes what waits and then each call at once', async () => {
    const { inserts, usage } = recorder();
    usage.record(call('a'));
    await usage.beforeApplicationShutdown();
    expect(inserts).toEqual([['a']]);
    usage.record(call('b'));
    await settle(0);
    expect(inserts).toEqual([['a'], ['b']]);
  });

  it('a failed insert is not thrown (usage never fails a run)', async () => {
    const repository = { recordMany: () => Promise.reject(new Error('store down')) };
    const usage = new UsageRecords(repository as unknown as ToolCallRepository);
    usage.record(call('a'));
    await expect(usage.flush()).resolves.toBeUndefined();
  });
});
