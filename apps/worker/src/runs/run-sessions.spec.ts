import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { newStoredId } from '#workflow/nest';
import { McpClientPool, type McpHttpTarget } from '#mcp';
import { startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunRecord, RunMcpSession, RunSessionRepository, ToolsetTargets } from '#workflow/nest';
import { RunSessions } from './run-sessions.js';

/**
 * The session records RunSessions keeps, in memory: `stored` what a run has on record, `sent` the
 * inserts begun, `recorded` those landed (20 ms later, or once `release` is called when `held`),
 * `overlaps` records that started while another ran.
 */
function fakeSessions(stored: RunMcpSession[] = [], held = false) {
  let release: () => void = () => undefined;
  const gate = held ? new Promise<void>((resolve) => (release = resolve)) : undefined;
  const sent: RunMcpSession[] = [];
  const recorded: RunMcpSession[] = [];
  const forgotten: RunMcpSession[] = [];
  const state = { writing: 0, overlaps: 0 };
  const repository = {
    record: async (_id: unknown, session: RunMcpSession) => {
      sent.push(session);
      if (state.writing > 0) state.overlaps++;
      state.writing++;
      await (gate ?? new Promise((resolve) => setTimeout(resolve, 20)));
      recorded.push(session);
      state.writing--;
    },
    list: async () => [...stored],
    forget: async (_id: unknown, sessions: RunMcpSession[]) => void forgotten.push(...sessions),
  };
  return { sent, recorded, forgotten, state, release: () => release(), repository: repository as unknown as RunSessionRepository };
}

describe('RunSessions', () => {
  let server: FixtureServer;
  let targets: Record<string, McpHttpTarget>;
  const toolsetTargets = {
    toolsetConnectionTarget: async (id: string) => (targets[id] ? { ...targets[id] } : undefined),
  } as unknown as ToolsetTargets;
  const aRun = () => ({ id: newStoredId() }) as unknown as RunRecord;

  beforeAll(async () => {
    Logger.overrideLogger(false);
    server = await startFixtureServer();
    targets = {
      a: { url: server.url, headers: { 'x-tenant': 'a' } },
      b: { url: server.url, headers: { 'x-tenant': 'b' } },
      down: { url: 'http://127.0.0.1:1/mcp' },
    };
  });
  afterAll(() => server.close());

  it("records each session a run's pool opens under the toolset whose target opened it, once per connection (sent before the session is used, not waited for)", async () => {
    const runs = fakeSessions([], true);
    const recorder = new RunSessions(runs.repository, toolsetTargets).recorder(newStoredId());
    const pool = new McpClientPool({ onSessionOpened: recorder.onSessionOpened });
    const a = await recorder.targets.toolsetConnectionTarget('a');
    const b = await recorder.targets.toolsetConnectionTarget('b');
    const first = await pool.acquire(a as McpHttpTarget);
    await pool.acquire(a as McpHttpTarget);
    const second = await pool.acquire(b as McpHttpTarget);
    // The sessions were handed out while their inserts had not landed: the pool did not wait for them.
    expect(runs.recorded).toEqual([]);
    expect(runs.sent).toEqual([
      { toolsetId: 'a', sessionId: first.connection.sessionId },
      { toolsetId: 'b', sessionId: second.connection.sessionId },
    ]);
    runs.release();
    await pool.closeAll();
    await recorder.forgetRecorded();
    expect(runs.recorded).toEqual(runs.sent);
    expect(server.sessions()).toBe(0);
  });

  it('records sessions opened at once at once (each is its own document), then forgets exactly those once the pool is closed', async () => {
    const runs = fakeSessions();
    const recorder = new RunSessions(runs.repository, toolsetTargets).recorder(newStoredId());
    const pool = new McpClientPool({ onSessionOpened: recorder.onSessionOpened });
    const opened = await Promise.all(
      ['a', 'b'].map(async (id) => pool.acquire((await recorder.targets.toolsetConnectionTarget(id)) as McpHttpTarget)),
    );
    expect(runs.sent.map((entry) => entry.sessionId).sort()).toEqual(opened.map((a) => a.connection.sessionId).sort());
    expect(runs.state.overlaps).toBe(1);
    await pool.closeAll();
    // Forgetting waits for the inserts still under way, then deletes exactly what they wrote.
    await recorder.forgetRecorded();
    expect(runs.recorded.map((entry) => entry.sessionId).sort()).toEqual(opened.map((a) => a.connection.sessionId).sort());
    expect(runs.forgotten).toEqual(runs.recorded);
  });

  it('ends the sessions an earlier attempt left, through each toolset’s target, and forgets them all, ended or not', async () => {
    const orphaned = new McpClientPool();
    const left: RunMcpSession[] = [];
    for (const toolsetId of ['a', 'b'])
      left.push({ toolsetId, sessionId: (await orphaned.acquire(targets[toolsetId])).connection.sessionId as string });
    expect(server.sessions()).toBe(2);
    const leftovers = [
      ...left,
      { toolsetId: 'deleted', sessionId: 'x' },
      { toolsetId: 'down', sessionId: 'y' },
      { toolsetId: 'a', sessionId: 'expired' },
    ];
    const runs = fakeSessions(leftovers);
    await new RunSessions(runs.repository, toolsetTargets).endLeftovers(aRun());
    expect(server.sessions()).toBe(0);
    expect(runs.forgotten).toEqual(leftovers);
    await orphaned.closeAll(); // its DELETEs now find nothing
  });

  it('does nothing for a run with no sessions on record', async () => {
    const runs = fakeSessions();
    await new RunSessions(runs.repository, toolsetTargets).endLeftovers(aRun());
    expect(runs.forgotten).toEqual([]);
  });
});
