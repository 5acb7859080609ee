import { describe, expect, it } from '@jest/globals';
import type { ServerContext } from '@modelcontextprotocol/server';
import { createSecretBox } from '#workflow/nest';
import { AuthorizationRounds, type RoundBinding } from './authorization-rounds.js';

const rounds = new AuthorizationRounds(createSecretBox({ key: '11'.repeat(32) }));
const binding: RoundBinding = { keyId: 'key-1', serverId: 'server-1', tool: 'echo' };
const inAnHour = new Date(Date.now() + 3_600_000).toISOString();

/** The parts of a retried request's context the rounds read. */
function retried(state: string | undefined, inputResponses?: Record<string, unknown>): ServerContext {
  return { mcpReq: { requestState: () => state, inputResponses } } as unknown as ServerContext;
}

describe('AuthorizationRounds (2026-07-28 requestState of a run waiting for an authorization)', () => {
  it('a first call has no continuation; a retry continues the sealed run with the user answer', () => {
    expect(rounds.continuation(retried(undefined), binding)).toBeUndefined();
    const state = rounds.mint(binding, 'run-1', inAnHour);
    expect(state).not.toContain('run-1');
    expect(rounds.continuation(retried(state, { authorization: { action: 'accept' } }), binding)).toEqual({
      runId: 'run-1',
      outcome: 'accept',
    });
    expect(rounds.continuation(retried(state, { authorization: { action: 'decline' } }), binding)).toEqual({
      runId: 'run-1',
      outcome: 'decline',
    });
    expect(rounds.continuation(retried(state, {}), binding)).toEqual({ runId: 'run-1', outcome: 'unanswered' });
  });

  it('refuses a state of another key, server or tool, an expired one, a forged one, one sealed under another key', () => {
    const state = rounds.mint(binding, 'run-1', inAnHour);
    const refusal = expect.objectContaining({ code: -32602, message: 'Invalid or expired requestState' });
    for (const other of [{ keyId: 'key-2' }, { keyId: null }, { serverId: 'server-2' }, { tool: 'other' }]) {
      expect(() => rounds.continuation(retried(state), { ...binding, ...other })).toThrow(refusal);
    }
    expect(() => rounds.continuation(retried(state), binding, Date.now() + 2 * 3_600_000)).toThrow(refusal);
    expect(() => rounds.continuation(retried('forged'), binding)).toThrow(refusal);
    const elsewhere = new AuthorizationRounds(createSecretBox({ key: '22'.repeat(32) })).mint(binding, 'run-1', inAnHour);
    expect(() => rounds.continuation(retried(elsewhere), binding)).toThrow(refusal);
  });
});
