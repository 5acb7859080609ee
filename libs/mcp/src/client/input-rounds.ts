/**
 * tools/call on the stateless 2026-07-28 revision, its `input_required` rounds driven here rather
 * than by the SDK's auto-fulfilment: an answer may be deferred (a run pausing for a person), and
 * what the call needs to go on — the round's `requestState` and input keys — must then leave the
 * process with the error, so that a later call (another worker, days later) sends the retry.
 */
import { withInputRequired } from '@modelcontextprotocol/client';
import type { z } from 'zod';
import { McpError, McpErrorCode } from '../errors.js';
import type { ElicitationAnswer, InputResponses, JsonSchema } from '../types.js';
import { inputRequiredError, isDeferral, type Answerer } from './elicitation-scope.js';
import type { Session, WireRequestOptions } from './session.js';
import { LenientCallToolResult } from './tool-result.js';

/** Rounds one call may take before we call the server's behaviour a loop. */
const MAX_ROUNDS = 8;

interface InputRequiredShape {
  resultType?: unknown;
  inputRequests?: Record<string, { method?: unknown; params?: { message?: unknown; requestedSchema?: unknown } }>;
  requestState?: unknown;
}

export async function callInRounds(
  session: Session,
  name: string,
  args: Record<string, unknown>,
  answerer: Answerer | undefined,
  resume: InputResponses | undefined,
  options: WireRequestOptions,
) {
  const what = `tool "${name}"`;
  let retry: Record<string, unknown> = resume
    ? { inputResponses: resume.responses, ...(resume.requestState !== undefined && { requestState: resume.requestState }) }
    : {};
  for (let round = 1; ; round += 1) {
    const raw = await session.client.request(
      { method: 'tools/call', params: { name, arguments: args, ...retry } },
      withInputRequired(LenientCallToolResult),
      { ...options, allowInputRequired: true },
    );
    const asked = raw as InputRequiredShape;
    if (asked.resultType !== 'input_required') return raw as z.infer<typeof LenientCallToolResult>;
    if (round > MAX_ROUNDS) throw new McpError(McpErrorCode.PROTOCOL_ERROR, `${what} still asked for input after ${MAX_ROUNDS} rounds`);
    const requestState = typeof asked.requestState === 'string' ? asked.requestState : undefined;
    const answered: Record<string, ElicitationAnswer> = {};
    for (const [key, inputRequest] of Object.entries(asked.inputRequests ?? {})) {
      if (inputRequest.method !== 'elicitation/create' || !answerer) {
        throw new McpError(McpErrorCode.PROTOCOL_ERROR, `${what} asked for input mcpflow does not give (${String(inputRequest.method)})`);
      }
      const request = {
        message: typeof inputRequest.params?.message === 'string' ? inputRequest.params.message : '',
        requestedSchema: (inputRequest.params?.requestedSchema ?? {}) as JsonSchema,
      };
      const answer = await answerer(request);
      if (isDeferral(answer)) throw inputRequiredError(what, { request, resume: { key, requestState, answered } });
      answered[key] = answer;
    }
    retry = { inputResponses: answered, ...(requestState !== undefined && { requestState }) };
  }
}
