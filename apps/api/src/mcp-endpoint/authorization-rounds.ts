import { Inject, Injectable } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { SECRET_BOX, type SecretBox } from '#workflow/nest';
import type { ElicitationOutcome } from './client-elicitations.js';

/** The `inputRequests` key of the URL elicitation a first round asks for. */
export const AUTHORIZATION_INPUT = 'authorization';

/** Whom a round's state belongs to: a state minted for one key, server or tool opens for no other. */
export interface RoundBinding {
  keyId: string | null;
  serverId: string;
  tool: string;
}

/** A retried 2026-07-28 call: the run its first round started, and what the user did with the URL. */
export interface Continuation {
  runId: string;
  outcome: ElicitationOutcome;
}

interface SealedRound extends RoundBinding {
  runId: string;
  /** Epoch ms: the authorization URL's expiry, after which the state is refused. */
  expiresAt: number;
}

const REFUSED = 'Invalid or expired requestState';

/**
 * The 2026-07-28 multi-round-trip flow of a published tool call whose run waits for an end user's
 * authorization: the first round answers `input_required` with a URL elicitation and a
 * `requestState` naming the run; the client's retry continues that run instead of starting
 * another. The state travels through the client, so it is sealed with the secrets box
 * (AES-256-GCM under SECRETS_KEY: integrity and confidentiality, every API process opens it) and
 * bound to the key, the server and the tool.
 */
@Injectable()
export class AuthorizationRounds {
  constructor(@Inject(SECRET_BOX) private readonly box: SecretBox) {}

  /** Whether the request's own `_meta` envelope declares URL-mode elicitation. */
  clientAcceptsUrl(ctx: ServerContext): boolean {
    const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as
      { elicitation?: { url?: unknown } } | undefined;
    return typeof capabilities?.elicitation?.url === 'object' && capabilities.elicitation.url !== null;
  }

  mint(binding: RoundBinding, runId: string, expiresAt: string): string {
    const round: SealedRound = { ...binding, runId, expiresAt: Date.parse(expiresAt) };
    return this.box.seal(JSON.stringify(round));
  }

  /** The continuation a retried call carries; undefined on a first call; -32602 for a state that does not open, bind or is expired. */
  continuation(ctx: ServerContext, binding: RoundBinding, now = Date.now()): Continuation | undefined {
    const state = ctx.mcpReq.requestState<unknown>();
    if (state === undefined) return undefined;
    let round: SealedRound;
    try {
      round = JSON.parse(this.box.open(String(state))) as SealedRound;
    } catch {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, REFUSED);
    }
    const bound = round.keyId === binding.keyId && round.serverId === binding.serverId && round.tool === binding.tool;
    if (!bound || !(round.expiresAt > now)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, REFUSED);
    const answer = inputResponse(ctx.mcpReq.inputResponses, AUTHORIZATION_INPUT);
    return { runId: round.runId, outcome: answer.kind === 'elicit' ? answer.action : 'unanswered' };
  }
}
