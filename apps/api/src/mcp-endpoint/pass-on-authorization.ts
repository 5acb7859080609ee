import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import {
  inputRequired,
  UrlElicitationRequiredError,
  type ElicitRequestURLParams,
  type InputRequiredResult,
} from '@modelcontextprotocol/server';
import type { AuthorizationRequest } from '#workflow';
import { ToolsetRepository, type RunView } from '#workflow/nest';
import { AnswerRunInput } from '../runs/answer-run-input.js';
import { CancelRun } from '../runs/cancel-run.js';
import { isTerminal, type RunWatch } from '../runs/run-waiter.js';
import { AUTHORIZATION_INPUT } from './authorization-rounds.js';
import type { ElicitationOutcome } from './client-elicitations.js';

/**
 * How a published tool call can pass an end user's OAuth authorization request on to its MCP client
 * (MCP 2025-11-25, URL-mode elicitation): `elicitation` sends `elicitation/create` to a client that
 * declared `capabilities.elicitation.url`; `elicitation-error` answers -32042
 * (URLElicitationRequiredError) to a 2025-11-25 client that did not; `input-required` answers a
 * 2026-07-28 client that declared it with the revision's `input_required` result (its retry
 * continues the run, see authorization-rounds.ts); `text`: everyone else gets the URL in the tool
 * error's text.
 */
export type AuthorizationPrompt =
  | {
      kind: 'elicitation';
      ask(params: ElicitRequestURLParams, signal: AbortSignal, timeoutMs: number): Promise<ElicitationOutcome>;
      /** `notifications/elicitation/complete` for that elicitation. */
      complete(elicitationId: string): Promise<void>;
    }
  | { kind: 'elicitation-error' }
  | { kind: 'input-required'; requestState(runId: string, expiresAt: string): string }
  | { kind: 'text' };

export interface WaitingCall {
  prompt: AuthorizationPrompt;
  toolName: string;
  keyId: string | null;
  signal: AbortSignal;
  /** Epoch ms: how long the call may still wait for its run. */
  deadline: number;
}

/** The authorization a run waits for, if that is what it waits for. */
export function awaitedAuthorization(run: RunView): AuthorizationRequest | undefined {
  return run.status === 'waiting' ? (run.inputRequest?.authorization ?? undefined) : undefined;
}

/** Resolves `wait()`, or 'aborted' as soon as `signal` aborts. */
export async function waitOrAbort<T>(wait: () => Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  if (signal.aborted) return 'aborted';
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([wait(), aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * A published tool call whose run waits for its end user's OAuth authorization (a per-user
 * toolset, docs/oauth.md): the request goes to the user's own MCP client as a URL-mode
 * elicitation. Accepted: the call stays open until the run finishes (the callback resumes it),
 * then `notifications/elicitation/complete` and the run's result. Declined or cancelled: the run's
 * wait is answered `decline` (its node fails MCP_AUTH_REQUIRED, as through `POST /runs/:id/input`)
 * and the call answers that. A client without URL elicitation gets -32042 and the run is canceled:
 * the client's retry after the authorization is a new run, and the waiting one must not run too.
 */
@Injectable()
export class PassOnAuthorization {
  private readonly logger = new Logger(PassOnAuthorization.name);

  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly answers: AnswerRunInput,
    private readonly canceler: CancelRun,
  ) {}

  /**
   * The run once it finished, or as it is when the call gave up waiting; 'aborted' when the call
   * went away; the `input_required` answer of a 2026-07-28 first round.
   */
  async execute(
    run: RunView,
    authorization: AuthorizationRequest,
    call: WaitingCall,
    watch: RunWatch,
  ): Promise<RunView | 'aborted' | InputRequiredResult> {
    const { prompt } = call;
    if (prompt.kind === 'text') return run;
    if (prompt.kind === 'input-required') {
      const elicitation = inputRequired.elicitUrl({ url: authorization.url, message: await this.message(authorization, call.toolName) });
      return inputRequired({
        inputRequests: { [AUTHORIZATION_INPUT]: elicitation },
        requestState: prompt.requestState(run.id, authorization.expiresAt),
      });
    }
    const elicitation: ElicitRequestURLParams = {
      mode: 'url',
      elicitationId: randomUUID(),
      url: authorization.url,
      message: await this.message(authorization, call.toolName),
    };
    if (prompt.kind === 'elicitation-error') {
      await this.canceler
        .execute(run.id)
        .catch((error: unknown) => this.logger.warn({ err: error, runId: run.id }, 'waiting run not canceled'));
      this.logger.log({ runId: run.id }, 'MCP client without URL elicitation: answered -32042, its waiting run canceled');
      throw new UrlElicitationRequiredError([elicitation], `${elicitation.message} Then call ${call.toolName} again.`);
    }
    const outcome = await prompt.ask(elicitation, call.signal, call.deadline - Date.now());
    this.logger.log({ runId: run.id, outcome }, 'URL elicitation of an end user authorization answered');
    if (outcome === 'unanswered') return call.signal.aborted ? 'aborted' : run;
    if (outcome !== 'accept') await this.decline(run.id, call.keyId);
    const finished = await waitOrAbort(() => watch.until(Math.max(0, call.deadline - Date.now()), undefined, isTerminal), call.signal);
    if (outcome === 'accept' && finished !== 'aborted' && isTerminal(finished)) {
      await prompt.complete(elicitation.elicitationId).catch((error: unknown) => {
        this.logger.warn({ err: error, runId: run.id }, 'notifications/elicitation/complete not sent');
      });
    }
    return finished ?? run;
  }

  /** Names the toolset (its name, the URL's host), never anything secret. */
  private async message(authorization: AuthorizationRequest, toolName: string): Promise<string> {
    const toolset = await this.toolsets.findById(authorization.toolsetId).catch(() => undefined);
    const host = new URL(authorization.url).host;
    return (
      `${toolName} needs your authorization to use the toolset "${toolset?.name ?? authorization.toolsetId}" (${host}) on your behalf: ` +
      `open the link and sign in (good until ${authorization.expiresAt}).`
    );
  }

  /** The end user declined (or cancelled): the run's wait is answered so, its node fails MCP_AUTH_REQUIRED. */
  async decline(runId: string, keyId: string | null): Promise<void> {
    try {
      await this.answers.execute(runId, { action: 'decline' }, keyId ?? undefined);
    } catch (error) {
      // Answered, canceled or resumed meanwhile: the run goes its way and the call answers as it ends.
      this.logger.warn({ err: error, runId }, 'declined authorization not passed on to the run');
    }
  }
}
