import { Injectable, Logger } from '@nestjs/common';
import { terminateSession, type McpTarget, type PooledSession } from '#mcp';
import { RunRepository, ToolsetTargets, type RunDoc, type RunMcpSessionDoc } from '#workflow';
import type { TargetSource } from './run-tools.js';

/** What a run's pool needs to put each session it opens on record. */
export interface SessionRecorder {
  /** The toolsets' targets, each remembered with its toolset so a session can name it. */
  targets: TargetSource;
  onSessionOpened(session: PooledSession): Promise<void>;
}

type Ending = Awaited<ReturnType<typeof terminateSession>> | 'toolset-gone' | 'failed';

/**
 * Keeps the promise that no MCP session outlives its run when the worker holding it is killed:
 * nobody sends the DELETE then, and the server would keep the session until its own expiry.
 * Each Streamable HTTP session a run opens is recorded in the run's document (toolset id and
 * session id only) before a call is sent on it; closing the pool normally clears the record with
 * the run's terminal (or hand-back) write. Whoever takes the run next — a worker resuming it,
 * or the sweep or BullMQ failing it — ends the recorded sessions with the toolset's target
 * (headers opened, SSRF-safe fetch), then forgets them. stdio and SSE sessions die with the process.
 */
@Injectable()
export class RunSessions {
  private readonly logger = new Logger(RunSessions.name);

  constructor(
    private readonly runs: RunRepository,
    private readonly targets: ToolsetTargets,
  ) {}

  /**
   * For one claim of a run: one write per session opened, none per call. The writes go one after
   * another: FerretDB v1 applies an update as read, change, write back with nothing around it, so
   * two at once on one document keep only one entry (seen: 10 concurrent `$addToSet` kept 1–2).
   * `source`: where the run's targets come from (the run's own toolset snapshots in the worker).
   */
  recorder(runId: RunDoc['_id'], source: TargetSource = this.targets): SessionRecorder {
    const toolsetOf = new WeakMap<McpTarget, string>();
    let previous: Promise<unknown> = Promise.resolve();
    const inTurn = (write: () => Promise<void>): Promise<void> => {
      const next = previous.then(write);
      previous = next.catch(() => undefined);
      return next;
    };
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
        if (toolsetId !== undefined) await inTurn(() => this.runs.recordSession(runId, { toolsetId, sessionId }));
      },
    };
  }

  /**
   * Ends the sessions an earlier claim left on record, then forgets them; a no-op (no I/O) when
   * there are none. Never throws: what it could not do is logged, and costs at most a second DELETE later.
   */
  async endLeftovers(run: RunDoc): Promise<void> {
    const sessions = run.mcpSessions ?? [];
    if (sessions.length === 0) return;
    const endings = await Promise.all(sessions.map((session) => this.end(session)));
    // Forgotten whatever the answer: a server that cannot be reached now gets no second DELETE, its expiry ends the session.
    await this.runs.forgetSessions(run._id, sessions).catch((error: unknown) => this.logger.warn({ err: error, runId: String(run._id) }, 'ended MCP sessions stay on record'));
    const tally = endings.reduce<Record<string, number>>((counts, ending) => ({ ...counts, [ending]: (counts[ending] ?? 0) + 1 }), {});
    this.logger.log({ runId: String(run._id), sessions: tally }, 'ended the MCP sessions an earlier attempt left open');
  }

  private async end(session: RunMcpSessionDoc): Promise<Ending> {
    try {
      const target = await this.targets.toolsetConnectionTarget(session.toolsetId);
      if (!target) return 'toolset-gone';
      return await terminateSession(target, session.sessionId);
    } catch (error) {
      this.logger.warn({ err: error, toolsetId: session.toolsetId }, 'could not end an MCP session an earlier attempt left open');
      return 'failed';
    }
  }
}
