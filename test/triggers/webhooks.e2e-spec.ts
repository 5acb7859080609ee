import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '#workflow/nest';
import { as, createKey } from '../access/support.js';
import { anonymousFetch } from '../support/auth.js';
import { api } from '../support/http.js';
import { parseExposition, total } from '../support/prometheus.js';
import { createWorkflow, startRunStack, waitForRun, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { greetingFlow, storedCount, storedText } from './support.js';

interface CreatedHook {
  id: string;
  url: string;
  verify: string;
  secret: string;
  respond: string;
}

interface Answer {
  runId: string;
  status: string;
  outputs?: Record<string, unknown> | null;
  code?: string;
  errors?: Problem[];
}

const BODY_LIMIT = 4096;
const RATE_LIMIT = 40;
const hmac = (secret: string, ...parts: string[]) => createHmac('sha256', secret).update(parts.join('')).digest('hex');

/** A delivery as a sender makes it: no API key, the signature in its headers. */
async function deliver(url: string, body: string, headers: Record<string, string>) {
  const res = await anonymousFetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer };
}

describe('inbound webhooks', () => {
  let stack: TestStack;
  let workflowId: string;

  beforeAll(async () => {
    stack = await startRunStack({
      HOOK_BODY_LIMIT_BYTES: String(BODY_LIMIT),
      HOOK_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT),
      HOOK_TIMESTAMP_TOLERANCE_SECONDS: '300',
    });
    workflowId = await createWorkflow(stack.apiUrl, greetingFlow);
  }, 60_000);
  afterAll(() => stack?.close());

  const createHook = async (body: Record<string, unknown>) => {
    const res = await api<CreatedHook>(stack.apiUrl, 'POST', `/workflows/${workflowId}/webhooks`, body);
    expect(res.status).toBe(201);
    return res.body;
  };
  const runsOf = (webhookId: string) => storedCount(stack.config, 'runs', { webhookId });

  it('a GitHub-signed delivery starts one run with the mapped inputs; its redelivery starts none', async () => {
    const hook = await createHook({ verify: 'github', inputs: { who: 'body.sender.login', event: 'headers.x-github-event' } });
    expect(hook.url).toBe(`${stack.apiUrl}/hooks/${hook.id}`);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    // Shown once: never again, and never in clear at rest.
    const shown = await api<Record<string, unknown>>(stack.apiUrl, 'GET', `/workflows/${workflowId}/webhooks/${hook.id}`);
    expect(shown.body.secret).toBeUndefined();
    expect(await storedText(stack.config, 'webhooks')).not.toContain(hook.secret);

    const body = JSON.stringify({ action: 'opened', sender: { login: 'octocat' }, issue: { title: 'Hi' } });
    const headers = {
      'x-github-event': 'issues',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${hmac(hook.secret, body)}`,
    };
    const first = await deliver(hook.url, body, headers);
    expect(first.status).toBe(202);
    expect(first.body.status).toBe('queued');
    const run = await waitForRun(stack.apiUrl, first.body.runId);
    expect(run).toMatchObject({
      status: 'succeeded',
      source: 'webhook',
      webhookId: hook.id,
      deliveryId: headers['x-github-delivery'],
      inputs: { who: 'octocat' },
      outputs: { greeting: 'Hello octocat' },
    });

    const again = await deliver(hook.url, body, headers);
    expect(again.status).toBe(202);
    expect(again.body.runId).toBe(first.body.runId);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await runsOf(hook.id)).toBe(1);
    const listed = await api<{ items: { id: string; recentRuns: { id: string }[] }[] }>(
      stack.apiUrl,
      'GET',
      `/workflows/${workflowId}/webhooks`,
    );
    expect(listed.body.items.find((item) => item.id === hook.id)?.recentRuns.map((item) => item.id)).toEqual([first.body.runId]);
  });

  it('refuses a wrong or missing signature, an old timestamp and an oversize body with their codes, and starts no run', async () => {
    const github = await createHook({ verify: 'github', inputs: { who: 'body.who' } });
    const body = JSON.stringify({ who: 'mallory' });
    const wrong = await deliver(github.url, body, { 'x-hub-signature-256': `sha256=${hmac('not the secret', body)}` });
    expect([wrong.status, wrong.body.code]).toEqual([401, 'HOOK_SIGNATURE_INVALID']);
    const missing = await deliver(github.url, body, {});
    expect([missing.status, missing.body.code]).toEqual([401, 'HOOK_SIGNATURE_MISSING']);
    const big = JSON.stringify({ who: 'x'.repeat(BODY_LIMIT) });
    const oversize = await deliver(github.url, big, { 'x-hub-signature-256': `sha256=${hmac(github.secret, big)}` });
    expect([oversize.status, oversize.body.code]).toEqual([413, 'BODY_TOO_LARGE']);
    const notJson = await deliver(github.url, '{"who":', { 'x-hub-signature-256': `sha256=${hmac(github.secret, '{"who":')}` });
    expect([notJson.status, notJson.body.code]).toEqual([400, 'HOOK_BODY_INVALID']);
    const noInput = JSON.stringify({ someone: 'else' });
    const invalid = await deliver(github.url, noInput, { 'x-hub-signature-256': `sha256=${hmac(github.secret, noInput)}` });
    expect([invalid.status, invalid.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(invalid.body.errors?.[0].path).toBe('/inputs/who');
    expect(await runsOf(github.id)).toBe(0);

    const stripe = await createHook({
      verify: 'stripe',
      secret: 'whsec_stripe_given_secret',
      inputs: { who: 'body.data.object.customer' },
    });
    const event = JSON.stringify({ id: 'evt_1', type: 'charge.succeeded', data: { object: { customer: 'cus_1' } } });
    const old = Math.floor(Date.now() / 1000) - 600;
    const expired = await deliver(stripe.url, event, { 'stripe-signature': `t=${old},v1=${hmac(stripe.secret, `${old}.`, event)}` });
    expect([expired.status, expired.body.code]).toEqual([401, 'HOOK_TIMESTAMP_EXPIRED']);
    expect(await runsOf(stripe.id)).toBe(0);
    const now = Math.floor(Date.now() / 1000);
    const fresh = await deliver(stripe.url, event, { 'stripe-signature': `t=${now},v1=${hmac(stripe.secret, `${now}.`, event)}` });
    expect(fresh.status).toBe(202);
    expect((await waitForRun(stack.apiUrl, fresh.body.runId)).deliveryId).toBe('evt_1');

    const unknown = await deliver(`${stack.apiUrl}/hooks/wh_nothing_here`, body, {});
    expect([unknown.status, unknown.body.code]).toEqual([404, 'NOT_FOUND']);

    const samples = parseExposition(await (await fetch(`${stack.apiUrl}/metrics`)).text());
    for (const reason of [
      'signature_invalid',
      'signature_missing',
      'body_too_large',
      'body_invalid',
      'inputs_invalid',
      'timestamp_expired',
      'unknown_hook',
    ]) {
      expect({ reason, count: total(samples, 'mcpflow_hook_refusals_total', { reason }) }).toEqual({ reason, count: expect.any(Number) });
      expect(total(samples, 'mcpflow_hook_refusals_total', { reason })).toBeGreaterThanOrEqual(1);
    }
    expect(total(samples, 'mcpflow_hook_deliveries_total', { verify: 'stripe', started: 'true' })).toBe(1);
  });

  it('answers the run outputs for respond: outputs (a Slack form delivery), and checks a token hook', async () => {
    const slack = await createHook({
      verify: 'slack',
      secret: '8f742231b10e8888abcd99yyyzzz85a5',
      inputs: { who: 'body.user_name' },
      respond: 'outputs',
    });
    const form = 'token=x&team_id=T1&user_name=ada&command=%2Fgreet';
    const ts = String(Math.floor(Date.now() / 1000));
    const res = await deliver(slack.url, form, {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': `v0=${hmac(slack.secret, `v0:${ts}:`, form)}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'succeeded', outputs: { greeting: 'Hello ada' } });

    const token = await createHook({ verify: 'token', secret: 'a-long-shared-token' });
    const body = JSON.stringify({ who: 'bob' });
    expect((await deliver(token.url, body, { 'x-webhook-token': 'a-long-shared-tokem' })).status).toBe(401);
    const ok = await deliver(token.url, body, { 'x-webhook-token': 'a-long-shared-token', 'x-delivery-id': 'd-1' });
    expect(ok.status).toBe(202);
    const run: RunView = await waitForRun(stack.apiUrl, ok.body.runId);
    expect(run.outputs).toEqual({ greeting: 'Hello bob' });
  });

  it('limits deliveries per hook and minute (429 with Retry-After), counting refused ones too', async () => {
    const hook = await createHook({ verify: 'token', secret: 'rate-limited-token' });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i <= RATE_LIMIT; i++) {
      const res = await deliver(hook.url, '{}', { 'x-webhook-token': 'wrong-token-here' });
      statuses.push(res.status);
      retryAfter = res.headers.get('retry-after') ?? retryAfter;
    }
    expect(statuses.slice(0, RATE_LIMIT).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Another hook has its own budget.
    const other = await createHook({ verify: 'token', secret: 'another-token-1' });
    expect((await deliver(other.url, JSON.stringify({ who: 'c' }), { 'x-webhook-token': 'another-token-1' })).status).toBe(202);
  });

  it('needs write to create a hook; deleting it (or its workflow) makes its URL answer 404', async () => {
    const reader = await createKey(stack.apiUrl, { name: 'reader', scopes: ['read'] });
    const refused = await as(reader.key)(stack.apiUrl, 'POST', `/workflows/${workflowId}/webhooks`, { verify: 'github' });
    expect(refused.status).toBe(403);
    const hook = await createHook({ verify: 'token', secret: 'to-be-deleted' });
    expect((await api(stack.apiUrl, 'DELETE', `/workflows/${workflowId}/webhooks/${hook.id}`)).status).toBe(204);
    expect((await deliver(hook.url, JSON.stringify({ who: 'a' }), { 'x-webhook-token': 'to-be-deleted' })).status).toBe(404);
    const other = await createWorkflow(stack.apiUrl, { ...greetingFlow, name: 'goes away' });
    const orphan = await api<CreatedHook>(stack.apiUrl, 'POST', `/workflows/${other}/webhooks`, {
      verify: 'token',
      secret: 'orphaned-token',
    });
    expect((await api(stack.apiUrl, 'DELETE', `/workflows/${other}`)).status).toBe(204);
    expect((await deliver(orphan.body.url, JSON.stringify({ who: 'a' }), { 'x-webhook-token': 'orphaned-token' })).status).toBe(404);
    expect(await storedCount(stack.config, 'webhooks', { workflowId: other })).toBe(0);
  });
});
