import { Injectable, Logger } from '@nestjs/common';
import { terminateSession, type McpTarget, type PooledSession } from '#mcp';
import { RunSessionRepository, ToolsetTargets, type RunRecord, type RunMcpSession } from '#workflow/nest';
import type { TargetSource } from './run-tools.js';

/** What a run's pool needs to put each session it opens on record. */
export interface SessionRecorder {
  /** The toolsets' targets, each remembered with its toolset so a session can name it. */
  targets: TargetSource;
  onSessionOpened(session: PooledSession): Promise<void>;
  /** Once the pool is closed and the run's pause or hand-back written: drops this claim's records. Never throws. */
  forgetRecorded(): Promise<void>;
}

type Ending = Awaited<ReturnType<typeof terminateSession>> | 'toolset-gone' | 'not-http' | 'failed';

/**
 * Keeps the promise that no MCP session outlives its run when the worker holding it is killed:
 * nobody sends the DELETE then, and the server would keep the session until its own expiry.
 * Each Streamable HTTP session a run opens is recorded in `run_mcp_sessions` (toolset id and
 * session id only): the insert is sent before a call is sent on it, and not waited for, so that it
 * adds no store round trip ahead of the run's first call (a worker killed in the millisecond
 * before the insert lands leaves that one session to the server's expiry); once the pool is closed and the run's pause (or
 * hand-back) is written, the claim deletes the records it wrote. A claim that ends the run leaves them: no claim comes
 * after it to read them, and retention removes them with the run. Whoever takes the run next — a
 * worker resuming it, or the sweep or BullMQ failing it — ends the recorded sessions with the
 * toolset's target (headers opened, SSRF-safe fetch), then forgets them: a record a dead worker
 * left after its sessions ended costs one `DELETE` answered 404. stdio and SSE sessions die with the process.
 */
@Injectable()
export class RunSessions {
  private readonly logger = new Logger(RunSessions.name);

  constructor(
    private readonly sessions: RunSessionRepository,
    private readonly targets: ToolsetTargets,
  ) {}

  /**
   * For one claim of a run: one insert per session opened, none per call (each its own document,
   * so sessions opened at once are recorded at once). `source`: where the run's targets come from
   * (the run's own toolset snapshots in the worker).
   */
  recorder(runId: string, source: TargetSource = this.targets): SessionRecorder {
    const toolsetOf = new WeakMap<McpTarget, string>();
    // Every record attempted, settled or not, so forgetting waits for writes still under way.
    const writes: Promise<RunMcpSession>[] = [];
    return {
      targets: {
        toolsetConnectionTarget: async (toolsetId) => {
          const target = await source.toolsetConnectionTarget(toolsetId);
          if (target) toolsetOf.set(target, toolsetId);
          return target;
        },
      },
      onSessionOpened: async ({ target, sessionId }) => {
        const toolsetId = toolsetOf.get(target);
        if (toolsetId === undefined) return;
        const entry = { toolsetId, sessionId };
        const write = this.sessions.record(runId, entry);
        // A failed insert may still have landed: it is forgotten too (deleting nothing is no error).
        writes.push(
          write.then(
            () => entry,
            () => entry,
          ),
        );
      },
      forgetRecorded: async () => {
        const entries = await Promise.all(writes.splice(0));
        await this.forget(runId, entries);
      },
    };
  }

  /**
   * Ends the sessions an earlier claim left on record, then forgets them (one read when there are
   * none). Never throws: what it could not do is logged (a session not ended then lasts until the
   * server expires it; a record not forgotten costs a second DELETE later).
   */
  async endLeftovers(run: RunRecord): Promise<void> {
    const sessions = await this.sessions.list(run.id).catch((error: unknown) => {
      this.logger.warn({ err: error, runId: run.id }, 'could not read the MCP sessions an earlier attempt left on record');
      return [];
    });
    if (sessions.length === 0) return;
    const endings = await Promise.all(sessions.map((session) => this.end(session)));
    // Forgotten whatever the answer: a server that cannot be reached now gets no second DELETE, its expiry ends the session.
    await this.forget(run.id, sessions);
    const tally = endings.reduce<Record<string, number>>((counts, ending) => ({ ...counts, [ending]: (counts[ending] ?? 0) + 1 }), {});
    this.logger.log({ runId: run.id, sessions: tally }, 'ended the MCP sessions an earlier attempt left open');
  }

  private async forget(runId: string, sessions: RunMcpSession[]): Promise<void> {
    if (sessions.length === 0) return;
    await this.sessions
      .forget(runId, sessions)
      .catch((error: unknown) => this.logger.warn({ err: error, runId: runId }, 'ended MCP sessions stay on record'));
  }

  private async end(session: RunMcpSession): Promise<Ending> {
    try {
      const target = await this.targets.toolsetConnectionTarget(session.toolsetId);
      if (!target) return 'toolset-gone';
      // Only Streamable HTTP sessions are recorded; a toolset that became stdio has nothing to end by DELETE.
      if (target.kind === 'stdio') return 'not-http';
      return await terminateSession(target, session.sessionId);
    } catch (error) {
      this.logger.warn({ err: error, toolsetId: session.toolsetId }, 'could not end an MCP session an earlier attempt left open');
      return 'failed';
    }
  }
}
