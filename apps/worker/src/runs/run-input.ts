import type { ElicitationAnswer, ElicitationDeferral, ElicitationRequest, InputResponses, PendingInput } from '#mcp';
import type { ElicitationRecord, PauseRequest, PauseState, RunPauses } from '#workflow';
import type { RunInputRequest, RunInputState } from '#workflow/nest';
import { PromiseMemo } from './promise-memo.js';

/** How a `pause` node's call answers: the answers given so far (in order), then it defers. */
export interface PausedCall {
  answerer: (request: ElicitationRequest) => Promise<ElicitationAnswer | ElicitationDeferral>;
  /** A 2026-07-28 call resumed: sent as the retry of the round the last answer belongs to. */
  inputResponses?: InputResponses;
}

/** What the worker stores when the run pauses on a node (`inputState` sealed). */
export interface RunPausePlan {
  inputRequest: RunInputRequest;
  inputState: string;
}

/**
 * One run's answers to the requests for input its nodes met (opened from the run's sealed
 * `inputState` once, when first needed), and the requests deferred during this claim: by a tool
 * call (`pause` elicitation), or by a node that pauses the run itself (RunPauses: approval, wait).
 */
export class RunInput implements RunPauses {
  private readonly opened = new PromiseMemo<RunInputState>();
  private readonly deferred = new Map<string, PendingInput>();
  private readonly requested = new Map<string, PauseRequest>();

  constructor(
    private readonly open: () => Promise<RunInputState>,
    private readonly seal: (state: RunInputState) => string,
  ) {}

  private state(): Promise<RunInputState> {
    return this.opened.get('state', this.open);
  }

  async forCall(nodeId: string, seen: ElicitationRecord[]): Promise<PausedCall> {
    const node = (await this.state()).nodes[nodeId];
    const last = node?.answers.at(-1);
    // A stateless server's round is answered by sending the call again; nothing is replayed to it.
    const replay = node?.resume ? [] : [...(node?.answers ?? [])];
    const answerer = async ({ message }: ElicitationRequest): Promise<ElicitationAnswer | ElicitationDeferral> => {
      const answer = replay.shift();
      if (!answer) return { defer: true };
      seen.push({ message, action: answer.action });
      // Who answered stays with us: the tool gets the answer only.
      return { action: answer.action, ...(answer.content && { content: answer.content }) };
    };
    if (!node?.resume || !last) return { answerer };
    const { key, requestState, answered } = node.resume;
    return { answerer, inputResponses: { responses: { ...answered, [key]: last }, ...(requestState !== undefined && { requestState }) } };
  }

  async stateOf(nodeId: string): Promise<PauseState | undefined> {
    const node = (await this.state()).nodes[nodeId];
    if (!node) return undefined;
    const answer = node.answers.at(-1);
    return { ...(answer && { answer }), ...(node.resumeAt !== undefined && { resumeAt: node.resumeAt }) };
  }

  request(nodeId: string, request: PauseRequest): void {
    this.requested.set(nodeId, request);
  }

  /** A call of `nodeId` ended with MCP_INPUT_REQUIRED: kept for the pause write. */
  noteDeferred(nodeId: string, pending: PendingInput): void {
    this.deferred.set(nodeId, pending);
  }

  /** What to store when the run pauses on the first of `nodeIds` (the others ask again once it resumes). */
  async pauseOn(nodeIds: readonly string[], now: Date): Promise<RunPausePlan | undefined> {
    const nodeId = nodeIds.find((id) => this.deferred.has(id) || this.requested.has(id));
    if (nodeId === undefined) return undefined;
    const pending = this.deferred.get(nodeId);
    const request: PauseRequest = pending?.request ?? (this.requested.get(nodeId) as PauseRequest);
    const stored = await this.state();
    const nodes = { ...stored.nodes };
    // Answers are kept (a session server's re-sent call replays them); a node that pauses itself starts afresh.
    if (pending) nodes[nodeId] = { answers: stored.nodes[nodeId]?.answers ?? [], ...(pending.resume && { resume: pending.resume }) };
    // Every node that paused for time keeps its resume time; the run resumes at the earliest.
    let resumeAt: number | undefined;
    for (const id of nodeIds) {
      const time = this.requested.get(id)?.resumeAt;
      if (!this.requested.has(id)) continue;
      nodes[id] = { answers: [], ...(time !== undefined && { resumeAt: time }) };
      if (time !== undefined) resumeAt = Math.min(resumeAt ?? time, time);
    }
    return {
      inputRequest: {
        nodeId,
        message: request.message,
        requestedSchema: request.requestedSchema,
        requestedAt: now,
        ...(resumeAt !== undefined && { resumeAt: new Date(resumeAt) }),
        ...(request.authorization && { authorization: request.authorization }),
      },
      inputState: this.seal({ nodes }),
    };
  }
}
