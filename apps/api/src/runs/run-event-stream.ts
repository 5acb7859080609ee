import type { ExecutionRecord } from '#workflow';
import type { RunDoc, RunStreamEvent } from '#workflow/nest';
import { toLogItem, toRunView } from '#workflow/nest';
import { isTerminal } from './run-waiter.js';

/** What a stream reads from MongoDB: the run and its executions after a seq. */
export interface RunStateSource {
  run(): Promise<RunDoc | undefined>;
  executionsAfter(seq: number): Promise<ExecutionRecord[]>;
}

type Write = (event: RunStreamEvent) => void;

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * One SSE connection's ordering and de-duplication. MongoDB is the truth (replay, and catch-up
 * when a gap shows or the periodic check finds the run finished); Redis messages are the live
 * path. Each node execution is sent once, in `seq` order, with a `node.started` before it
 * (the live one, or one rebuilt from the log item); `run.finished` comes last, then the stream ends.
 */
export class RunEventStream {
  private lastSeq = 0;
  private claim = 0;
  private ended = false;
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
      await this.catchUp(true);
    } finally {
      this.opened();
    }
  }

  /** Re-reads MongoDB (periodic backstop for lost messages). */
  check(): Promise<void> {
    return this.serialize(() => this.catchUp(false));
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
    if (this.claim === 0) await this.catchUp(false);
    if (this.ended) return;
    switch (event.type) {
      case 'node.started': {
        const at = Date.parse(event.at);
        if ((this.spansSent.get(event.nodeId) ?? []).some(([from, to]) => from <= at && at <= to)) return;
        this.noteStart(event.nodeId, at);
        this.write(event);
        return;
      }
      case 'node.finished': {
        const { seq, nodeId, status } = event.item;
        const [startedAt, finishedAt] = [Date.parse(event.item.startedAt), Date.parse(event.item.finishedAt)];
        if (seq <= this.lastSeq) return;
        // A gap, or this node's node.started went out before this connection listened: MongoDB
        // already holds this record (saved before the event), so it is read from there.
        const startMissing = status !== 'skipped' && !this.startSent(nodeId, startedAt, finishedAt);
        if (seq > this.lastSeq + 1 || startMissing) return this.catchUp(false);
        this.sendFinished(seq, nodeId, startedAt, finishedAt, event);
        return;
      }
      case 'run.finished':
        // Anything still missing is read from MongoDB, which holds the terminal state by now.
        return this.catchUp(false);
    }
  }

  private async catchUp(replaying: boolean): Promise<void> {
    const run = await this.source.run();
    if (!run) return this.end();
    const records = await this.source.executionsAfter(this.lastSeq);
    // Records of an active run may be newer than the run just read (a claim in between): its
    // claim is read again so that run.started goes out ahead of them. Whether the run ended stays
    // with the first read, which all its records precede (a terminal run takes no more claims).
    const claimed = records.length > 0 && !isTerminal(run) ? ((await this.source.run()) ?? run) : run;
    const events: { at: number; rank: number; send: () => void }[] = [];
    if (claimed.startedAt && claimed.claims > this.claim) {
      const claim = claimed.claims;
      const at = claimed.startedAt.getTime();
      events.push({
        at,
        rank: 0,
        send: () => this.deliverNow({ type: 'run.started', runId: this.runId, at: iso(at), claim, resumedExecutions: 0 }),
      });
    }
    for (const record of records) {
      if (record.status !== 'skipped' && !this.startSent(record.nodeId, record.startedAt, record.finishedAt)) {
        const started: RunStreamEvent = {
          type: 'node.started',
          runId: this.runId,
          at: iso(record.startedAt),
          nodeId: record.nodeId,
          nodeType: record.type,
          attempt: record.attempt,
        };
        events.push({ at: replaying ? record.startedAt : record.finishedAt, rank: 1, send: () => this.deliverNow(started) });
      }
      const finished: RunStreamEvent = { type: 'node.finished', runId: this.runId, at: iso(record.finishedAt), item: toLogItem(record) };
      events.push({
        at: record.finishedAt,
        rank: 2,
        send: () => this.sendFinished(record.seq, record.nodeId, record.startedAt, record.finishedAt, finished),
      });
    }
    // Replay orders by time (parallel branches interleave as they ran); catch-up keeps seq order.
    if (replaying) events.sort((a, b) => a.at - b.at || a.rank - b.rank);
    for (const event of events) event.send();
    if (isTerminal(run)) {
      this.write({ type: 'run.finished', runId: this.runId, at: (run.finishedAt ?? new Date()).toISOString(), run: toRunView(run) });
      this.end();
    }
  }

  private deliverNow(event: RunStreamEvent): void {
    if (event.type === 'run.started') this.claim = Math.max(this.claim, event.claim);
    if (event.type === 'node.started') this.noteStart(event.nodeId, Date.parse(event.at));
    this.write(event);
  }

  private sendFinished(seq: number, nodeId: string, startedAt: number, finishedAt: number, event: RunStreamEvent): void {
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    const spans = this.spansSent.get(nodeId) ?? [];
    spans.push([startedAt, finishedAt]);
    this.spansSent.set(nodeId, spans);
    this.write(event);
  }

  /** Whether a node.started for this node, inside this execution's time span, went out. */
  private startSent(nodeId: string, from: number, to: number): boolean {
    return (this.startsSent.get(nodeId) ?? []).some((at) => from <= at && at <= to);
  }

  private noteStart(nodeId: string, at: number): void {
    const starts = this.startsSent.get(nodeId) ?? [];
    starts.push(at);
    this.startsSent.set(nodeId, starts);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}
