/**
 * Which call an elicitation belongs to. The server's request arrives on the call's own response
 * stream (Streamable HTTP) or inside its result (2026-07-28 `input_required`), so it is handled in
 * the async context the call started: a per-call answerer set around the call is found there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { McpError, McpErrorCode } from '../errors.js';
import type { ElicitationAnswer, ElicitationDeferral, ElicitationRequest, PendingInput } from '../types.js';

export type Answerer = (request: ElicitationRequest) => Promise<ElicitationAnswer | ElicitationDeferral>;
type SdkAnswerer = (request: ElicitationRequest) => Promise<ElicitationAnswer>;

const perCall = new AsyncLocalStorage<SdkAnswerer>();

export function isDeferral(answer: ElicitationAnswer | ElicitationDeferral): answer is ElicitationDeferral {
  return 'defer' in answer && answer.defer === true;
}

export function withCallElicitation<T>(answerer: SdkAnswerer | undefined, work: () => Promise<T>): Promise<T> {
  return answerer ? perCall.run(answerer, work) : work();
}

/** The handler a session registers: the current call's answerer, else the connection's (a deferral outside a call is a cancel). */
export function elicitationHandler(connectionAnswerer: Answerer): SdkAnswerer {
  return async (request) => {
    const callAnswerer = perCall.getStore();
    if (callAnswerer) return callAnswerer(request);
    const answer = await connectionAnswerer(request);
    return isDeferral(answer) ? { action: 'cancel' } : answer;
  };
}

export function inputRequiredError(what: string, pendingInput: PendingInput): McpError {
  return new McpError(McpErrorCode.INPUT_REQUIRED, `${what} asked for input: ${pendingInput.request.message}`, { pendingInput });
}

/**
 * One call's answering of a session server's `elicitation/create`. A deferral cannot keep the
 * server's request waiting beyond the call (a worker may die): the call is stopped (the server
 * gets notifications/cancelled, and `cancel` for its request) and ends with MCP_INPUT_REQUIRED.
 */
export class CallElicitation {
  private readonly stopper = new AbortController();
  private pending?: McpError;

  constructor(
    private readonly answerer: Answerer | undefined,
    private readonly what: string,
  ) {}

  /** Aborted when the call was deferred. */
  get signal(): AbortSignal {
    return this.stopper.signal;
  }

  /** The MCP_INPUT_REQUIRED error, once a request was deferred. */
  get deferred(): McpError | undefined {
    return this.pending;
  }

  get sdkAnswerer(): SdkAnswerer | undefined {
    const answerer = this.answerer;
    if (!answerer) return undefined;
    return async (request) => {
      const answer = await answerer(request);
      if (!isDeferral(answer)) return answer;
      this.pending ??= inputRequiredError(this.what, { request });
      this.stopper.abort(this.pending);
      return { action: 'cancel' };
    };
  }
}
