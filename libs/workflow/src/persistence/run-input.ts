/**
 * What a run that paused for input keeps between its claims. The request it waits on is shown
 * (`inputRequest` on the run); the answers given so far, and what a 2026-07-28 server needs to
 * go on (its round's `requestState` and input key), are sealed on the run (`inputState`): answers
 * are a person's words, and `requestState` is the server's, neither for logs or listings.
 */
import type { SecretBox } from '../secrets/secret-box.js';

export interface InputAnswerDoc {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
  /** The API key id that answered; never sent to a tool. */
  answeredBy?: string;
  /** ISO 8601. */
  answeredAt?: string;
}

export interface NodeInputState {
  /** Every answer this node's requests got, in order: replayed to a session server's re-sent call. */
  answers: InputAnswerDoc[];
  /** 2026-07-28: the round the last answer belongs to; the call is sent again with it as `inputResponses[key]`. */
  resume?: { key: string; requestState?: string; answered: Record<string, InputAnswerDoc> };
  /** A node that pauses for time (approval timeout, wait): when its scheduled resume comes (epoch ms), kept across pauses. */
  resumeAt?: number;
}

export interface RunInputState {
  nodes: Record<string, NodeInputState>;
}

export function openInputState(box: SecretBox, sealed: string | undefined): RunInputState {
  return sealed ? (JSON.parse(box.open(sealed)) as RunInputState) : { nodes: {} };
}

export function sealInputState(box: SecretBox, state: RunInputState): string {
  return box.seal(JSON.stringify(state));
}
