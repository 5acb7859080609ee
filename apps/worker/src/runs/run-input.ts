import type { ElicitationAnswer, ElicitationDeferral, ElicitationRequest, InputResponses, PendingInput } from '#mcp';
import type { ElicitationRecord } from '#workflow';
import type { InputRequestDoc, RunInputState } from '#workflow/nest';
import { PromiseMemo } from './promise-memo.js';

/** How a `pause` node's call answers: the answers given so far (in order), then it defers. */
export interface PausedCall {
  answerer: (request: ElicitationRequest) => Promise<ElicitationAnswer | ElicitationDeferral>;
  /** A 2026-07-28 call resumed: sent as the retry of the round the last answer belongs to. */
  inputResponses?: InputResponses;
}

/** What the worker stores when the run pauses on a node (`inputState` sealed). */
export interface RunPausePlan {
  inputRequest: InputRequestDoc;
  inputState: string;
}

/**
 * One run's answers to the requests for input its `pause` nodes met (opened from the run's sealed
 * `inputState` once, when first needed), and the requests deferred during this claim.
 */
export class RunInput {
  private readonly opened = new PromiseMemo<RunInputState>();
  private readonly deferred = new Map<string, PendingInput>();

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
      return answer;
    };
    if (!node?.resume || !last) return { answerer };
    const { key, requestState, answered } = node.resume;
    return { answerer, inputResponses: { responses: { ...answered, [key]: last }, ...(requestState !== undefined && { requestState }) } };
  }

  /** A call of `nodeId` ended with MCP_INPUT_REQUIRED: kept for the pause write. */
  noteDeferred(nodeId: string, pending: PendingInput): void {
    this.deferred.set(nodeId, pending);
  }

  /** What to store when the run pauses on the first of `nodeIds` (the others ask again once it resumes). */
  async pauseOn(nodeIds: readonly string[], now: Date): Promise<RunPausePlan | undefined> {
    const nodeId = nodeIds.find((id) => this.deferred.has(id));
    const pending = nodeId === undefined ? undefined : this.deferred.get(nodeId);
    if (nodeId === undefined || !pending) return undefined;
    const stored = await this.state();
    const previous = stored.nodes[nodeId] ?? { answers: [] };
    const node = { answers: previous.answers, ...(pending.resume && { resume: pending.resume }) };
    return {
      inputRequest: {
        nodeId,
        message: pending.request.message,
        requestedSchema: JSON.stringify(pending.request.requestedSchema),
        requestedAt: now,
      },
      inputState: this.seal({ nodes: { ...stored.nodes, [nodeId]: node } }),
    };
  }
}
