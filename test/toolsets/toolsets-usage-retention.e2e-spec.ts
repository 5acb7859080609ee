import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import mongoose from 'mongoose';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { loadConfig, type AppConfig } from '#workflow/nest';
import { RunRetention } from '../../apps/worker/src/retention/run-retention.js';
import { api } from '../support/http.js';
import { registerToolset } from '../support/runs.js';
import { dropTestData, startApi, startWorker, testConfig } from '../support/stack.js';

const DAY_MS = 86_400_000;

describe('retention of tool-call records (usage), TOOL_CALL_RETENTION_MAX_AGE', () => {
  let config: AppConfig;
  let apiApp: Awaited<ReturnType<typeof startApi>>;
  let worker: INestApplicationContext;
  let db: mongoose.Connection;
  let fixture: FixtureServer;

  beforeAll(async () => {
    // Run retention off, tool calls kept 2 days; passes are started by hand (the scheduled ones are issue 14's tests).
    config = testConfig({ RUN_RETENTION_MAX_AGE: '0', RUN_RETENTION_MAX_COUNT: '0', TOOL_CALL_RETENTION_MAX_AGE: '2d' });
    apiApp = await startApi(config);
    worker = await startWorker(config);
    db = await mongoose.createConnection(config.mongoUrl).asPromise();
    fixture = await startFixtureServer({ tools: basicTools() });
  });
  afterAll(async () => {
    await worker?.close();
    await apiApp?.app.close();
    await db?.close();
    await fixture?.close();
    await dropTestData(config);
  });

  it('prunes the calls older than the limit in the retention pass and keeps the rest in the usage figures', async () => {
    const id = await registerToolset(apiApp.url, fixture.url);
    for (let call = 0; call < 2; call++) {
      expect((await api(apiApp.url, 'POST', `/toolsets/${id}/tools/echo/call`, { arguments: { message: 'now' } })).status).toBe(200);
    }
    const old = (daysAgo: number) => ({
      toolsetId: id,
      tool: 'echo',
      at: new Date(Date.now() - daysAgo * DAY_MS),
      durationMs: 5,
      source: 'adhoc',
    });
    await db.collection('tool_calls').insertMany([old(3), old(10), old(400), old(1)]);

    const retention = worker.get(RunRetention);
    expect(retention.enabled).toBe(true);
    const pass = await retention.prune();
    expect(pass).toMatchObject({ byAge: 0, byCount: 0, toolCalls: { removed: 3, complete: true } });

    const left = await db.collection('tool_calls').find({ toolsetId: id }).toArray();
    expect(left).toHaveLength(3);
    expect(left.every((call) => (call.at as Date).getTime() > Date.now() - 2 * DAY_MS)).toBe(true);
    const since = new Date(Date.now() - 30 * DAY_MS).toISOString();
    const usage = await api<{ calls: number }>(apiApp.url, 'GET', `/toolsets/${id}/usage?since=${since}`);
    expect(usage.body.calls).toBe(3);
    expect((await retention.prune()).toolCalls).toEqual({ removed: 0, complete: true });
  });

  it('reads the limit as a duration: 30 days by default, 0 keeps every call', () => {
    const base = { MONGO_URL: 'mongodb://127.0.0.1/x', REDIS_URL: 'redis://127.0.0.1' };
    expect(loadConfig(base).retention.toolCallMaxAgeMs).toBe(30 * DAY_MS);
    expect(loadConfig({ ...base, TOOL_CALL_RETENTION_MAX_AGE: '0' }).retention.toolCallMaxAgeMs).toBe(0);
    expect(() => loadConfig({ ...base, TOOL_CALL_RETENTION_MAX_AGE: '30' })).toThrow(/TOOL_CALL_RETENTION_MAX_AGE/);
    expect(config.retention).toMatchObject({ maxAgeMs: 0, maxCount: 0, toolCallMaxAgeMs: 2 * DAY_MS });
  });
});
