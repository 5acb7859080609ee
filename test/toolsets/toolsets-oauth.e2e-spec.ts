import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplicationContext } from '@nestjs/common';
import { startOAuthFixtureServer, type OAuthFixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, startRun, startRunStack, waitForRun } from '../support/runs.js';
import { startWorker, type TestStack } from '../support/stack.js';
import { approve, echoWorkflow } from '../support/oauth.js';
import { rawDatabaseDump } from '../support/toolsets.js';

interface AuthState {
  type: 'oauth';
  grant: string;
  state: 'authorized' | 'needs_authorization';
  expiresAt: string | null;
  clientSecret?: string;
}
interface Toolset {
  id: string;
  name?: string;
  toolCount: number;
  auth?: AuthState;
}

describe('toolsets: OAuth 2.1 (authorization code, refresh under a lock, client credentials)', () => {
  let stack: TestStack;
  let secondWorker: INestApplicationContext;
  let fixture: OAuthFixtureServer;

  beforeAll(async () => {
    stack = await startRunStack();
    secondWorker = await startWorker(stack.config);
  }, 60_000);
  afterAll(async () => {
    await secondWorker?.close();
    await stack?.close();
  }, 60_000);
  afterEach(async () => fixture?.close());

  it('authorize once, runs keep working across an expiry (20 runs on 2 workers refresh once), revoke → needs_authorization', async () => {
    fixture = await startOAuthFixtureServer({ accessTokenTtlMs: 120_000 });
    const created = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', { name: 'oauth', url: fixture.url, auth: { type: 'oauth' } });
    expect(created.status).toBe(201);
    expect(created.body.auth).toMatchObject({ type: 'oauth', grant: 'authorization_code', state: 'needs_authorization', expiresAt: null });
    expect(created.body.toolCount).toBe(0);
    const id = created.body.id;

    const started = await api<{ authorizationUrl: string; state: string }>(stack.apiUrl, 'POST', `/toolsets/${id}/authorize`);
    expect(started.status).toBe(200);
    const url = new URL(started.body.authorizationUrl);
    expect(url.origin).toBe(fixture.origin);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(fixture.url);
    expect(url.searchParams.get('redirect_uri')).toMatch(/\/oauth\/callback$/);

    const query = await approve(started.body.authorizationUrl);
    const callback = await api<{ toolsetId: string; state: string; toolCount: number }>(stack.apiUrl, 'GET', `/oauth/callback${query}`);
    expect(callback.status).toBe(200);
    expect(callback.body).toMatchObject({ toolsetId: id, state: 'authorized' });
    expect(callback.body.toolCount).toBeGreaterThan(0);
    const replayed = await api<{ code: string }>(stack.apiUrl, 'GET', `/oauth/callback${query}`);
    expect(replayed.status).toBe(400);
    expect(replayed.body.code).toBe('OAUTH_STATE_INVALID');

    const authorized = await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    expect(authorized.body.auth).toMatchObject({ state: 'authorized', expiresAt: expect.any(String) });

    const workflowId = await createWorkflow(stack.apiUrl, echoWorkflow(id, 'echo through OAuth'));
    const first = await startRun(stack.apiUrl, workflowId, { inputs: { text: 'first' } }, '?wait=15000');
    expect(first.body).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'first' } } });

    fixture.expireAccessTokens();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, index) => startRun(stack.apiUrl, workflowId, { inputs: { text: `run ${index}` } })),
    );
    const finished = await Promise.all(runs.map((run) => waitForRun(stack.apiUrl, (run.body as RunView).id, 60_000)));
    const failures = finished.filter((run) => run.status !== 'succeeded').map((run) => JSON.stringify(run.error));
    expect({ failures, tokenRequests: fixture.tokenRequests() }).toEqual({ failures: [], tokenRequests: expect.anything() });
    expect(finished.map((run) => run.status)).toEqual(Array(20).fill('succeeded'));
    expect(fixture.tokenRequests('refresh_token')).toHaveLength(1);
    expect(fixture.tokenRequests('refresh_token')[0].ok).toBe(true);

    // Tokens are nowhere: not in answers, run logs or any raw document.
    const logs = await api(stack.apiUrl, 'GET', `/runs/${(first.body as RunView).id}/logs`);
    const listing = await api(stack.apiUrl, 'GET', '/toolsets');
    const everything = JSON.stringify([
      created.body,
      started.body,
      callback.body,
      authorized.body,
      first.body,
      logs.body,
      listing.body,
      finished,
    ]);
    const dump = JSON.stringify(await rawDatabaseDump(stack.config));
    expect(dump).toContain('enc:v1:');
    for (const token of fixture.issuedTokens()) {
      expect(everything).not.toContain(token);
      expect(dump).not.toContain(token);
    }

    fixture.revokeAll();
    const refused = await startRun(stack.apiUrl, workflowId, { inputs: { text: 'after revoke' } }, '?wait=15000');
    expect(refused.body).toMatchObject({ status: 'failed' });
    expect(JSON.stringify(refused.body)).toContain('MCP_AUTH_REQUIRED');
    const lost = await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    expect(lost.body.auth).toMatchObject({ state: 'needs_authorization', expiresAt: null });
  }, 180_000);

  it('client credentials: authorized at create, the secret masked and sealed', async () => {
    const clientSecret = 'svc-secret-0b7f3c9d2e';
    fixture = await startOAuthFixtureServer({
      clients: [{ client_id: 'svc', client_secret: clientSecret, redirect_uris: [], grant_types: ['client_credentials'] }],
    });
    const created = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', {
      url: fixture.url,
      auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth).toMatchObject({ grant: 'client_credentials', state: 'authorized', clientSecret: '***' });
    expect(created.body.toolCount).toBeGreaterThan(0);
    const again = await api<{ state: string }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/authorize`);
    expect(again.body).toEqual({ state: 'authorized' });
    expect(fixture.tokenRequests('client_credentials')).toHaveLength(2);
    const dump = JSON.stringify(await rawDatabaseDump(stack.config));
    expect(dump).not.toContain(clientSecret);

    // The client secret and the tokens are bound to the origin they were obtained for: a URL
    // elsewhere needs the secret given again, and gets tokens of its own.
    const elsewhereSecret = 'svc-elsewhere-5d1e';
    const elsewhere = await startOAuthFixtureServer({
      clients: [{ client_id: 'svc', client_secret: elsewhereSecret, redirect_uris: [], grant_types: ['client_credentials'] }],
    });
    try {
      for (const body of [
        { url: elsewhere.url },
        { url: elsewhere.url, auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: '***' } },
      ]) {
        const refused = await api<{ errors: { path: string; code: string }[] }>(
          stack.apiUrl,
          'PATCH',
          `/toolsets/${created.body.id}`,
          body,
        );
        expect(refused.status).toBe(400);
        expect(refused.body.errors).toEqual([expect.objectContaining({ path: '/auth/clientSecret', code: 'SECRET_REQUIRED' })]);
      }
      expect(elsewhere.tokenRequests()).toEqual([]);
      const wrongSecret = await api<{ code: string }>(stack.apiUrl, 'PATCH', `/toolsets/${created.body.id}`, {
        url: elsewhere.url,
        auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: 'not-the-secret' },
      });
      expect(wrongSecret.status).toBe(422);
      expect(wrongSecret.body.code).toBe('MCP_AUTH_FAILED');
      const unchanged = await api<Toolset & { url: string }>(stack.apiUrl, 'GET', `/toolsets/${created.body.id}`);
      expect(unchanged.body).toMatchObject({ url: fixture.url, auth: { state: 'authorized' } });
      const moved = await api<Toolset>(stack.apiUrl, 'PATCH', `/toolsets/${created.body.id}`, {
        url: elsewhere.url,
        auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: elsewhereSecret },
      });
      expect(moved.status).toBe(200);
      expect(moved.body.auth).toMatchObject({ state: 'authorized', clientSecret: '***' });
      expect(moved.body.toolCount).toBeGreaterThan(0);
      expect(elsewhere.tokenRequests('client_credentials')).toEqual([{ clientId: 'svc', grantType: 'client_credentials', ok: true }]);
      const dump = JSON.stringify(await rawDatabaseDump(stack.config));
      expect(dump).not.toContain(elsewhereSecret);
    } finally {
      await elsewhere.close();
    }
  }, 60_000);

  it('PATCH auth: another client drops the grant until authorized again; "***" keeps the secret; a new origin needs it again', async () => {
    const { api: where, mcp } = stack.config;
    const redirect = `${mcp.publicBaseUrl ?? `http://${where.host}:${where.port}`}/oauth/callback`;
    const clientSecret = 'pre-secret-8c2a61';
    fixture = await startOAuthFixtureServer({ clients: [{ client_id: 'pre', client_secret: clientSecret, redirect_uris: [redirect] }] });
    const created = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', { url: fixture.url, auth: { type: 'oauth' } });
    const id = created.body.id;
    const first = await api<{ authorizationUrl: string }>(stack.apiUrl, 'POST', `/toolsets/${id}/authorize`);
    expect(new URL(first.body.authorizationUrl).searchParams.get('redirect_uri')).toBe(redirect);
    expect((await api(stack.apiUrl, 'GET', `/oauth/callback${await approve(first.body.authorizationUrl)}`)).status).toBe(200);
    // mcpflow registered itself (DCR) the first time.
    expect(new URL(first.body.authorizationUrl).searchParams.get('client_id')).not.toBe('pre');

    const changed = await api<Toolset>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, {
      auth: { type: 'oauth', clientId: 'pre', clientSecret },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.auth).toMatchObject({ state: 'needs_authorization', expiresAt: null, clientSecret: '***' });
    const kept = await api<Toolset>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, {
      name: 'renamed',
      auth: { type: 'oauth', clientId: 'pre', clientSecret: '***' },
    });
    expect(kept.status).toBe(200);

    const again = await api<{ authorizationUrl: string }>(stack.apiUrl, 'POST', `/toolsets/${id}/authorize`);
    expect(new URL(again.body.authorizationUrl).searchParams.get('client_id')).toBe('pre');
    const callback = await api<{ state: string }>(stack.apiUrl, 'GET', `/oauth/callback${await approve(again.body.authorizationUrl)}`);
    expect(callback.body).toMatchObject({ state: 'authorized' });
    expect(fixture.tokenRequests('authorization_code').at(-1)).toEqual({ clientId: 'pre', grantType: 'authorization_code', ok: true });
    expect(fixture.clientAuthentications().at(-1)).toBe('client_secret_basic');

    const moved = await api<{ errors: { path: string; code: string }[] }>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, {
      url: 'http://127.0.0.2:1/mcp',
    });
    expect(moved.status).toBe(400);
    expect(moved.body.errors).toEqual([expect.objectContaining({ path: '/auth/clientSecret', code: 'SECRET_REQUIRED' })]);
    const noSecret = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', {
      url: fixture.url,
      auth: { type: 'oauth' },
    });
    const masked = await api<{ errors: { path: string }[] }>(stack.apiUrl, 'PATCH', `/toolsets/${noSecret.body.id}`, {
      auth: { type: 'oauth', clientId: 'x', clientSecret: '***' },
    });
    expect(masked.status).toBe(400);
    expect(masked.body.errors.map((error) => error.path)).toEqual(['/auth/clientSecret']);
    expect(JSON.stringify(await rawDatabaseDump(stack.config))).not.toContain(clientSecret);
  }, 60_000);

  it('refuses client credentials without a secret, with the path', async () => {
    const refused = await api<{ errors: { path: string }[] }>(stack.apiUrl, 'POST', '/toolsets', {
      url: 'http://127.0.0.1:1/mcp',
      auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error) => error.path)).toEqual(['/auth/clientSecret']);
  }, 30_000);
});
