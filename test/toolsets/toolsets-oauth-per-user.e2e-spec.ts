import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startOAuthFixtureServer, type OAuthFixtureServer, type SeenToken } from '#mcp/testing';
import type { LogItem, RunStreamEvent, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, readEvents, startRun, startRunStack, waitForRun } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { approve, perUserToolset, perUserWorkflow } from '../support/oauth.js';
import { rawDatabaseDump } from '../support/toolsets.js';

interface Authorization {
  toolsetId: string;
  subject: string;
  url: string;
  expiresAt: string;
}
type WaitingRun = RunView & { inputRequest: { nodeId: string; authorization: Authorization | null } | null };

describe('toolsets: OAuth per end user (perUser: true)', () => {
  let stack: TestStack;
  let fixture: OAuthFixtureServer;

  beforeAll(async () => {
    stack = await startRunStack();
  }, 60_000);
  afterAll(async () => stack?.close(), 60_000);
  afterEach(async () => fixture?.close());

  /** Starts a run that must wait for its subject's authorization; the waiting run. */
  async function waitingRun(workflowId: string, inputs: Record<string, unknown>): Promise<WaitingRun> {
    const started = await startRun(stack.apiUrl, workflowId, { inputs });
    expect(started.status).toBe(202);
    return (await waitForRun(
      stack.apiUrl,
      started.body.id,
      30_000,
      (run) => run.status !== 'queued' && run.status !== 'running',
    )) as WaitingRun;
  }

  it('a run waits for its subject, the callback resumes it, and each subject calls with its own token only', async () => {
    fixture = await startOAuthFixtureServer({ accessTokenTtlMs: 120_000 });
    const toolsetId = await perUserToolset(stack.apiUrl, fixture.url);
    const workflowId = await createWorkflow(stack.apiUrl, perUserWorkflow(toolsetId, true));
    const callsOf: Record<string, SeenToken[]> = { alice: [], bob: [] };
    /** Runs of one subject at once; the calls the fixture saw meanwhile are theirs. */
    const runAs = async (user: 'alice' | 'bob', ...texts: string[]) => {
      const before = fixture.seenTokens().length;
      const runs = await Promise.all(texts.map((text) => startRun(stack.apiUrl, workflowId, { inputs: { user, text } }, '?wait=20000')));
      texts.forEach((text, index) => expect(runs[index].body).toMatchObject({ status: 'succeeded', outputs: { said: { echo: text } } }));
      callsOf[user].push(...fixture.seenTokens().slice(before));
    };

    // alice has no grant: her run waits, holding no worker, with the URL to open.
    const alice = await waitingRun(workflowId, { user: 'alice', text: 'alice 1' });
    expect(alice.status).toBe('waiting');
    const authorization = alice.inputRequest?.authorization as Authorization;
    expect(authorization).toMatchObject({ toolsetId, subject: 'input:alice', expiresAt: expect.any(String) });
    expect(new URL(authorization.url).origin).toBe(fixture.origin);
    expect(alice.inputRequest?.nodeId).toBe('echo');
    const logs: LogItem[] = await allLogs(stack.apiUrl, alice.id);
    expect(logs.find((item) => item.nodeId === 'echo')).toMatchObject({ status: 'waiting', authorization: { subject: 'input:alice' } });
    expect(fixture.seenTokens()).toEqual([]);

    const aliceQuery = await approve(authorization.url);
    const callback = await api<Record<string, unknown>>(stack.apiUrl, 'GET', `/oauth/callback${aliceQuery}`);
    expect(callback.status).toBe(200);
    expect(callback.body).toEqual({ toolsetId, state: 'authorized', runId: alice.id, runResumed: true });
    const replayed = await api<{ code: string }>(stack.apiUrl, 'GET', `/oauth/callback${aliceQuery}`);
    expect(replayed.body.code).toBe('OAUTH_STATE_INVALID');
    const resumed = await waitForRun(stack.apiUrl, alice.id, 30_000);
    expect(resumed).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'alice 1' } }, inputRequest: null });
    callsOf.alice.push(...fixture.seenTokens());

    // alice is authorized now: her next run does not wait. bob is not: his run waits, its events say why.
    await runAs('alice', 'alice 2');
    const bob = await waitingRun(workflowId, { user: 'bob', text: 'bob 1' });
    expect(bob.inputRequest?.authorization).toMatchObject({ toolsetId, subject: 'input:bob' });
    const before = fixture.seenTokens().length;
    const events = readEvents(`${stack.apiUrl}/runs/${bob.id}/events`, 30_000);
    const bobCallback = await api(stack.apiUrl, 'GET', `/oauth/callback${await approve(bob.inputRequest?.authorization?.url as string)}`);
    expect(bobCallback.body).toMatchObject({ runId: bob.id, runResumed: true });
    const seen = (await events).map((event: RunStreamEvent) => event.type);
    expect(seen).toContain('run.waiting');
    expect(seen.at(-1)).toBe('run.finished');
    const waitingEvent = (await events).find((event) => event.type === 'run.waiting') as { run: WaitingRun };
    expect(waitingEvent.run.inputRequest?.authorization?.subject).toBe('input:bob');
    expect(await waitForRun(stack.apiUrl, bob.id, 30_000)).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'bob 1' } } });
    callsOf.bob.push(...fixture.seenTokens().slice(before));
    await runAs('alice', 'alice 3');
    await runAs('bob', 'bob 2');

    // Each subject's calls carried its own tokens only, obtained by its own authorization.
    const subjects = (calls: SeenToken[]) => [...new Set(calls.map((call) => call.subject))];
    const tokens = (calls: SeenToken[]) => new Set(calls.map((call) => call.token));
    expect(callsOf.alice).toHaveLength(3);
    expect(callsOf.bob).toHaveLength(2);
    expect(subjects(callsOf.alice)).toHaveLength(1);
    expect(subjects(callsOf.bob)).toHaveLength(1);
    expect(subjects(callsOf.alice)[0]).not.toBe(subjects(callsOf.bob)[0]);
    expect([...tokens(callsOf.alice)].filter((token) => tokens(callsOf.bob).has(token))).toEqual([]);
    // The toolset's own grant (the first approval: the person who listed its tools) is never used by a run.
    expect(fixture.seenTokens().map((call) => call.subject)).not.toContain('user-1');

    // Renewal per subject: after an expiry, concurrent runs of a subject refresh its grant once, under its own lock.
    fixture.expireAccessTokens();
    await runAs('alice', 'alice 4', 'alice 5', 'alice 6');
    await runAs('bob', 'bob 3', 'bob 4', 'bob 5');
    expect(fixture.tokenRequests('refresh_token')).toHaveLength(2);
    expect(fixture.tokenRequests('refresh_token').every((request) => request.ok)).toBe(true);
    expect(subjects(callsOf.alice)).toHaveLength(1);
    expect(subjects(callsOf.bob)).toHaveLength(1);

    // Sealed at rest: a grant per subject, no token in clear in any raw document.
    const dump = await rawDatabaseDump(stack.config);
    const grants = (dump.oauth_grants ?? []) as { toolsetId: string; subject: string }[];
    expect(
      grants
        .filter((grant) => grant.toolsetId === toolsetId)
        .map((grant) => grant.subject)
        .sort(),
    ).toEqual(['', 'input:alice', 'input:bob']);
    const text = JSON.stringify(dump);
    for (const token of fixture.issuedTokens()) expect(text).not.toContain(token);
  }, 180_000);

  it('without a subject input the calling key is the subject; answering the wait with decline fails the node', async () => {
    fixture = await startOAuthFixtureServer();
    const toolsetId = await perUserToolset(stack.apiUrl, fixture.url);
    const workflowId = await createWorkflow(stack.apiUrl, perUserWorkflow(toolsetId, false));
    const run = await waitingRun(workflowId, { text: 'by key' });
    expect(run.status).toBe('waiting');
    expect(run.inputRequest?.authorization?.subject).toBe(`key:${run.triggeredBy}`);
    const declined = await api(stack.apiUrl, 'POST', `/runs/${run.id}/input`, { action: 'decline' });
    expect(declined.status).toBe(202);
    const failed = await waitForRun(stack.apiUrl, run.id, 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatchObject({ code: 'MCP_AUTH_REQUIRED', nodeId: 'echo' });
    expect(fixture.seenTokens()).toEqual([]);
  }, 60_000);

  it('refuses perUser with client credentials, with the path', async () => {
    const refused = await api<{ errors: { path: string }[] }>(stack.apiUrl, 'POST', '/toolsets', {
      url: 'http://127.0.0.1:1/mcp',
      auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: 's', perUser: true },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error) => error.path)).toEqual(['/auth/perUser']);
  }, 30_000);
});
