import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApiKeyRepository } from '#workflow/nest';
import { spawnApi } from '../support/api-process.js';
import { anonymousFetch, bearer, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { dropTestData, startApi, testConfig } from '../support/stack.js';
import { until } from '../support/until.js';
import { as, createKey, greeting } from './support.js';

/** Resolves with whether `ended` settled within `ms`. */
const within = (ended: Promise<unknown>, ms: number) =>
  Promise.race([ended.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

/** An in-process API and a second API process over the same database and Redis. */
async function twoApis(overrides: Record<string, string> = {}) {
  const config = testConfig(overrides);
  const first = await startApi(config);
  const second = await spawnApi(config);
  const close = async () => {
    await second.stop();
    await first.app.close();
    await dropTestData(config);
  };
  return { first: first.url, second: second.url, firstApp: first.app, close };
}

describe('revocation across API processes', () => {
  let first: string;
  let second: string;
  let close: () => Promise<void>;

  // Starting a second API process takes seconds on a loaded machine.
  beforeAll(async () => {
    ({ first, second, close } = await twoApis());
  }, 60_000);
  afterAll(() => close?.());

  it('refuses a key on the other process with the very next request after its revocation', async () => {
    const key = await createKey(first, { name: 'to revoke', scopes: ['read'] });
    expect((await as(key.key)(second, 'GET', '/workflows')).status).toBe(200);
    expect((await api(first, 'DELETE', `/api-keys/${key.id}`)).status).toBe(204);
    const refused = await as(key.key)(second, 'GET', '/workflows');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHENTICATED');
    expect((await api(second, 'GET', '/workflows', undefined, bearer(keyOf(first)))).status).toBe(200);
  });

  it('ends the open streams of a revoked key on every process within seconds, and those of an expired key', async () => {
    const watcher = await createKey(first, { name: 'watcher', scopes: ['read', 'mcp'] });
    const soon = await createKey(first, { name: 'expiring', scopes: ['read'], expiresAt: new Date(Date.now() + 6000).toISOString() });
    const workflow = await api<{ id: string }>(first, 'POST', '/workflows', greeting('watched'));
    // No worker here: the run stays queued, so its event stream stays open.
    const run = await api<{ id: string }>(first, 'POST', `/workflows/${workflow.body.id}/runs`, { inputs: { who: 'Ada' } });
    const server = await api<{ id: string }>(first, 'POST', '/mcp-servers', { name: 'watched', tools: [{ workflowId: workflow.body.id }] });
    expect([run.status, server.status]).toEqual([202, 201]);
    const open = (url: string, key: string) => anonymousFetch(url, { headers: { ...bearer(key), accept: 'text/event-stream' } });
    const watched = await Promise.all(
      [`${second}/runs/${run.body.id}/events`, `${second}/mcp/${server.body.id}`, `${second}/mcp/${server.body.id}/sse`].map((url) =>
        open(url, watcher.key),
      ),
    );
    const expiring = await open(`${second}/runs/${run.body.id}/events`, soon.key);
    expect([...watched, expiring].map((res) => res.status)).toEqual([200, 200, 200, 200]);
    const watchedEnded = Promise.all(watched.map((res) => res.text().catch(() => '')));
    const expiringEnded = expiring.text().catch(() => '');

    // Open while the key is valid (two key checks go by)…
    expect(await within(watchedEnded, 4500)).toBe(false);
    expect((await api(first, 'DELETE', `/api-keys/${watcher.id}`)).status).toBe(204);
    // …and ended on the other process within a few checks of the revocation.
    expect(await within(watchedEnded, 15_000)).toBe(true);
    expect(await within(expiringEnded, 20_000)).toBe(true);
  }, 60_000);
});

describe('keys and workflows kept in process, their changes broadcast', () => {
  // A short bound, so that the test of a lost broadcast ends soon.
  const CACHE_MAX_AGE_MS = 1500;
  let first: string;
  let second: string;
  let revokeWithoutBroadcast: (id: string) => Promise<unknown>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    let firstApp;
    ({ first, second, firstApp, close } = await twoApis({ CACHE_MAX_AGE_MS: String(CACHE_MAX_AGE_MS) }));
    // What a revocation would leave behind if its broadcast were lost (the revoking process died in between).
    revokeWithoutBroadcast = (id) => firstApp.get(ApiKeyRepository).revoke(id, new Date());
  }, 60_000);
  afterAll(() => close?.());

  it('runs the version a PUT on the other process made from the next request on, and no run after a DELETE there', async () => {
    const workflow = await api<{ id: string }>(first, 'POST', '/workflows', greeting('changing'));
    const runOn = (url: string) =>
      api<{ version: number }>(url, 'POST', `/workflows/${workflow.body.id}/runs`, { inputs: { who: 'Ada' } }, bearer(keyOf(first)));
    expect((await runOn(second)).body.version).toBe(1);
    expect((await api(first, 'PUT', `/workflows/${workflow.body.id}`, greeting('changed'))).status).toBe(200);
    const after = await runOn(second);
    expect([after.status, after.body.version]).toEqual([202, 2]);
    expect((await api(first, 'DELETE', `/workflows/${workflow.body.id}`)).status).toBe(204);
    const deleted = await runOn(second);
    expect([deleted.status, (deleted.body as { code?: string }).code]).toEqual([404, 'NOT_FOUND']);
  });

  it('refuses a key whose revocation was not broadcast once the copies are older than CACHE_MAX_AGE_MS', async () => {
    const key = await createKey(first, { name: 'lost broadcast', scopes: ['read'] });
    expect((await as(key.key)(second, 'GET', '/workflows')).status).toBe(200);
    await revokeWithoutBroadcast(key.id);
    const refused = await until(
      () => as(key.key)(second, 'GET', '/workflows'),
      (res) => res.status !== 200,
      'the key refused on the other process',
      CACHE_MAX_AGE_MS + 10_000,
    );
    expect([refused.status, refused.body.code]).toEqual([401, 'UNAUTHENTICATED']);
  });
});

describe('rate limits shared through Redis', () => {
  let first: string;
  let second: string;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ first, second, close } = await twoApis({
      RATE_LIMIT_PER_MINUTE: '6',
      AUTH_FAILURES_PER_MINUTE: '3',
      AUTH_FAILURE_BLOCK_SECONDS: '120',
    }));
  }, 60_000);
  afterAll(() => close?.());

  it('answers 429 with Retry-After once a key used its requests of the minute, counted over both processes', async () => {
    const busy = await createKey(first, { name: 'busy', scopes: ['read'] });
    const other = await createKey(first, { name: 'other', scopes: ['read'] });
    const statuses: number[] = [];
    for (const url of [first, second, first, second, first, second]) statuses.push((await as(busy.key)(url, 'GET', '/workflows')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const limited = await as(busy.key)(first, 'GET', '/workflows');
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await as(busy.key)(second, 'GET', '/workflows')).status).toBe(429);
    expect((await as(other.key)(second, 'GET', '/workflows')).status).toBe(200);
  });

  it('counts failed authentications per address and then blocks the address for guesses, not for valid keys', async () => {
    const guess = (url: string, n: number) =>
      anonymousFetch(`${url}/workflows`, { headers: bearer(`mcpf_${String(n).padStart(43, 'g')}`) });
    expect((await guess(first, 1)).status).toBe(401);
    expect((await guess(second, 2)).status).toBe(401);
    expect((await guess(first, 3)).status).toBe(401);
    const blocked = await guess(second, 4);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((await guess(first, 5)).status).toBe(429);
    // The block is for guessing keys: a valid key from the same address goes on working.
    expect((await api(first, 'GET', '/workflows')).status).toBe(200);
    expect((await anonymousFetch(`${first}/health`)).status).toBe(200);
  });
});
