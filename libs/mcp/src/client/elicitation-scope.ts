/**
 * Which call an elicitation belongs to. The server's request arrives on the call's own response
 * stream (Streamable HTTP) or inside its result (2026-07-28 `input_required`), so it is handled in
 * the async context the call started: a per-call answerer set around the call is found there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ElicitationAnswer, ElicitationRequest } from '../types.js';

type Answerer = (request: ElicitationRequest) => Promise<ElicitationAnswer>;

const perCall = new AsyncLocalStorage<Answerer>();

export function withCallElicitation<T>(answerer: Answerer | undefined, work: () => Promise<T>): Promise<T> {
  return answerer ? perCall.run(answerer, work) : work();
}

/** The handler a session registers: the current call's answerer, else the connection's. */
export function elicitationHandler(connectionAnswerer: Answerer): Answerer {
  return (request) => (perCall.getStore() ?? connectionAnswerer)(request);
}
