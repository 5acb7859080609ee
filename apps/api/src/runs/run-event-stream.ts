import type { ExecutionRecord } from '#workflow';
import type { RunRecord, RunningNode, RunStreamEvent } from '#workflow/nest';
import { toLogItem, toRunView } from '#workflow/nest';
import { isTerminal } from './run-waiter.js';

/** What a stream reads from MongoDB: the run, and its executions after a seq (`run`: the run just read). */
export interface RunStateSource {
  run(): Promise<RunRecord | undefined>;
  executionsAfter(seq: number, run: RunRecord): Promise<ExecutionRecord[]>;
}

type Write = (event: RunStreamEvent) => void;
type FinishedEvent = Extract<RunStreamEvent, { type: 'node.finished' }>;
type StartedEvent = Extract<RunStreamEvent, { type: 'node.started' }>;

/** A node execution known to have finished (from a live event or from MongoDB), not yet sent. */
interface Finished {
  seq: number;
  nodeId: string;
  nodeType: string;
  attempt: number;
  skipped: boolean;
  startedAt: number;
  finishedAt: number;
  event: FinishedEvent;
}

/** An event about to go out, with where it falls in time (see `byTime`). */
interface Timed {
  at: number;
  /** At the same millisecond a finish goes before a start (the finish is what let it start). */
  rank: number;
  seq: number;
  /** A start in the same millisecond as its own finish goes right before it. */
  sub: number;
  send: () => void;
}

const iso = (ms: number): string => new Date(ms).toISOString();

const byTime = (a: Timed, b: Timed): number => a.at - b.at || a.rank - b.rank || a.seq - b.seq || a.sub - b.sub;

function fromRecord(runId: string, record: ExecutionRecord): Finished {
  const { seq, nodeId, type, attempt, status, startedAt, finishedAt } = record;
  const event: FinishedEvent = { type: 'node.finished', runId, at: iso(finishedAt), item: toLogItem(record) };
  return { seq, nodeId, nodeType: type, attempt, skipped: status === 'skipped', startedAt, finishedAt, event };
}

function fromLive(event: FinishedEvent): Finished {
  const { seq, nodeId, type, attempt, status, startedAt, finishedAt } = event.item;
  const times = { startedAt: Date.parse(startedAt), finishedAt: Date.parse(finishedAt) };
  return { seq, nodeId, nodeType: type, attempt, skipped: status === 'skipped', ...times, event };
}

/**
 * One SSE connection's ordering and de-duplication. Live Redis messages are the fast path and
 * may be ahead of MongoDB (the records of nodes without side effects are written with the next
 * durable write); MongoDB fills what this connection did not hear (the replay, a gap in `seq`,
 * the periodic check, the end). Each node execution is sent once, in `seq` order, after a
 * `node.started` (the live one, or one rebuilt from the record); a `node.started` this connection
 * missed because it subscribed while the node ran is rebuilt from the `running` list the next
 * live event carries, at once, so the live story reads like the replay (ordered by time).
 * `run.finished` comes last, then the stream ends.
 */
export class RunEventStream {
  private lastSeq = 0;
  private claim = 0;
  private ended = false;
  /** `requestedAt` of the last request for input announced (run.waiting), once per pause. */
  private waitingSent?: string;
  /** Finished executions heard of but not sent, by seq: they wait for the ones before them. */
  private readonly held = new Map<number, Finished>();
  /** Start times of node.started events sent, by node. */
  private readonly startsSent = new Map<string, number[]>();
  /** Time spans of executions sent, by node: a late live node.started inside one is stale. */
  private readonly spansSent = new Map<string, [number, number][]>();
  private opened: () => void = () => undefined;
  /** Live events and checks queue behind the replay, whenever they arrive. */
  private chain = new Promise<void>((resolve) => (this.opened = resolve));

  constructor(
    private readonly runId: string,
    private readonly source: RunStateSource,
    private readonly write: Write,
    private readonly onEnd: () => void,
  ) {}

  get finished(): boolean {
    return this.ended;
  }

  /** Replays what MongoDB holds, ordered by time; call once, after subscribing to live events. */
  async replay(): Promise<void> {
    try {
      await this.catchUp();
    } finally {
      this.opened();
    }
  }

  /** Re-reads MongoDB (periodic backstop for lost messages). */
  check(): Promise<void> {
    return this.serialize(() => this.catchUp());
  }

  live(event: RunStreamEvent): Promise<void> {
    return this.serialize(() => this.deliver(event));
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(() => (this.ended ? undefined : step())).catch(() => undefined);
    return this.chain;
  }

  private async deliver(event: RunStreamEvent): Promise<void> {
    if (event.type === 'run.started') {
      if (event.claim > this.claim) {
        this.claim = event.claim;
        this.write(event);
      }
      return;
    }
    // Any other event before a run.started: that one went out before this connection listened.
    // MongoDB holds it (the claim precedes every event), so it comes first, from there.
    // Both go out with what MongoDB adds, so that the missed starts of `running` nodes take their place among them.
    const unclaimed = this.claim === 0;
    switch (event.type) {
      case 'node.started':
        return unclaimed ? this.catchUp(event.running, event) : this.flush(event.running ?? [], event);
      case 'node.finished': {
        const finished = fromLive(event);
        if (finished.seq <= this.lastSeq) return;
        this.held.set(finished.seq, finished);
        // A gap: the executions before it are read from MongoDB (those it holds by now).
        return unclaimed || !this.held.has(this.lastSeq + 1) ? this.catchUp(event.running) : this.flush(event.running ?? []);
      }
      case 'run.waiting':
      case 'run.finished':
        // Anything still missing is read from MongoDB, which holds the waiting or terminal state by now.
        return this.catchUp();
    }
  }

  /** Reads MongoDB, then sends what can go out (with `running` and `started`: see `flush`). */
  private async catchUp(running: readonly RunningNode[] = [], started?: StartedEvent): Promise<void> {
    const run = await this.source.run();
    if (!run) return this.end();
    const records = await this.source.executionsAfter(this.lastSeq, run);
    // Records of an active run may be newer than the run just read (a claim in between): its
    // claim is read again so that run.started goes out ahead of them. Whether the run ended stays
    // with the first read, which all its records precede (a terminal run takes no more claims).
    const claimed = records.length > 0 && !isTerminal(run) ? ((await this.source.run()) ?? run) : run;
    if (claimed.startedAt && claimed.claims > this.claim) {
      this.claim = claimed.claims;
      this.write({
        type: 'run.started',
        runId: this.runId,
        at: claimed.startedAt.toISOString(),
        claim: claimed.claims,
        resumedExecutions: 0,
      });
    }
    for (const record of records) if (record.seq > this.lastSeq) this.held.set(record.seq, fromRecord(this.runId, record));
    const terminal = isTerminal(run);
    const view = run.status === 'waiting' ? toRunView(run) : undefined;
    // An ended (or waiting) run's records are all written: what is still missing never comes, nothing waits for it.
    this.flush(running, started, terminal || view !== undefined);
    if (view?.inputRequest && view.inputRequest.requestedAt !== this.waitingSent) {
      this.waitingSent = view.inputRequest.requestedAt;
      this.write({ type: 'run.waiting', runId: this.runId, at: view.inputRequest.requestedAt, run: view });
    }
    if (terminal) {
      this.write({ type: 'run.finished', runId: this.runId, at: (run.finishedAt ?? new Date()).toISOString(), run: toRunView(run) });
      this.end();
    }
  }

  /**
   * Sends, ordered by time, the held executions that follow the last one sent (all of them when
   * `all`), each after its node.started, the missed starts of `running` nodes, then `started`.
   */
  private flush(running: readonly RunningNode[], started?: StartedEvent, all = false): void {
    const out: Timed[] = [];
    for (let next = this.nextHeld(all); next; next = this.nextHeld(all)) {
      const execution = next;
      this.held.delete(execution.seq);
      this.lastSeq = execution.seq;
      if (!execution.skipped && !this.startSent(execution.nodeId, execution.startedAt, execution.finishedAt)) {
        // Right before its own finish when both fall in the same millisecond.
        const rank = execution.startedAt === execution.finishedAt ? 1 : 2;
        const send = () => this.sendStart(this.rebuiltStart(execution));
        out.push({ at: execution.startedAt, rank, seq: execution.seq, sub: 0, send });
      }
      out.push({ at: execution.finishedAt, rank: 1, seq: execution.seq, sub: 1, send: () => this.sendFinished(execution) });
    }
    for (const node of running) {
      const at = Date.parse(node.at);
      if (this.isStale(node.nodeId, at) || this.startSent(node.nodeId, at, at)) continue;
      const event: StartedEvent = { type: 'node.started', runId: this.runId, ...node };
      out.push({ at, rank: 2, seq: Number.MAX_SAFE_INTEGER, sub: 0, send: () => this.sendStart(event) });
    }
    out.sort(byTime);
    for (const event of out) event.send();
    const at = started && Date.parse(started.at);
    if (started && at && !this.isStale(started.nodeId, at) && !this.startSent(started.nodeId, at, at)) this.sendStart(started);
  }

  private nextHeld(all: boolean): Finished | undefined {
    const next = this.held.get(this.lastSeq + 1);
    if (next || !all || this.held.size === 0) return next;
    return this.held.get(Math.min(...this.held.keys()));
  }

  private rebuiltStart(execution: Finished): StartedEvent {
    const { nodeId, nodeType, attempt, startedAt } = execution;
    return { type: 'node.started', runId: this.runId, at: iso(startedAt), nodeId, nodeType, attempt };
  }

  private sendStart(event: StartedEvent): void {
    const at = Date.parse(event.at);
    const starts = this.startsSent.get(event.nodeId) ?? [];
    starts.push(at);
    this.startsSent.set(event.nodeId, starts);
    // The `running` list is this stream's input, not part of what clients read.
    const { running: _running, ...sent } = event;
    this.write(sent);
  }

  private sendFinished(execution: Finished): void {
    const spans = this.spansSent.get(execution.nodeId) ?? [];
    spans.push([execution.startedAt, execution.finishedAt]);
    this.spansSent.set(execution.nodeId, spans);
    const { running: _running, ...sent } = execution.event;
    this.write(sent);
  }

  /** A node.started inside the span of an execution already sent: a late message of an earlier attempt. */
  private isStale(nodeId: string, at: number): boolean {
    return (this.spansSent.get(nodeId) ?? []).some(([from, to]) => from <= at && at <= to);
  }

  /** Whether a node.started for this node, inside this execution's time span, went out. */
  private startSent(nodeId: string, from: number, to: number): boolean {
    return (this.startsSent.get(nodeId) ?? []).some((at) => from <= at && at <= to);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}
