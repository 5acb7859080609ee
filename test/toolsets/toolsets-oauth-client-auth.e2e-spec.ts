import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, startOAuthFixtureServer, type FixtureServer, type OAuthFixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, startRun, startRunStack, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { echoWorkflow } from '../support/oauth.js';
import { rawDatabaseDump } from '../support/toolsets.js';

interface Toolset {
  id: string;
  toolCount: number;
  auth?: Record<string, unknown>;
}

/** Every piece of a private key that would give it away: its PEM body lines and its JWK private members. */
function keyMaterial(privateKey: KeyObject): string[] {
  const pemLines = (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).split('\n').filter((line) => line.length > 40);
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return [...pemLines, ...['d', 'p', 'q', 'dp', 'dq', 'qi'].map((member) => jwk[member]).filter(Boolean)];
}

describe('toolsets: OAuth client authentication (private_key_jwt) and removing OAuth', () => {
  let stack: TestStack;
  let fixture: OAuthFixtureServer | undefined;
  let plain: FixtureServer | undefined;

  beforeAll(async () => {
    stack = await startRunStack();
  }, 60_000);
  afterAll(async () => stack?.close(), 60_000);
  afterEach(async () => {
    await fixture?.close();
    await plain?.close();
    fixture = plain = undefined;
  });

  it('client credentials with a private key: authorized at create, runs work, the key sealed and never shown', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    fixture = await startOAuthFixtureServer({
      clients: [
        {
          client_id: 'svc-jwt',
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicKey.export({ format: 'jwk' })] },
        },
      ],
    });
    const pem = privateKey.export({ format: 'pem', type: 'sec1' }) as string;
    const auth = { type: 'oauth', grant: 'client_credentials', clientId: 'svc-jwt', privateKey: pem };
    const created = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', { url: fixture.url, auth });
    expect(created.status).toBe(201);
    expect(created.body.auth).toMatchObject({
      grant: 'client_credentials',
      tokenEndpointAuthMethod: 'private_key_jwt',
      privateKey: '***',
      signingAlgorithm: 'ES256',
      state: 'authorized',
    });
    expect(created.body.auth).not.toHaveProperty('clientSecret');
    expect(created.body.toolCount).toBeGreaterThan(0);
    const id = created.body.id;

    const workflowId = await createWorkflow(stack.apiUrl, echoWorkflow(id, 'echo through private_key_jwt'));
    const run = await startRun(stack.apiUrl, workflowId, { inputs: { text: 'signed' } }, '?wait=15000');
    expect(run.body).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'signed' } } });
    fixture.expireAccessTokens();
    const renewed = await startRun(stack.apiUrl, workflowId, { inputs: { text: 'renewed' } }, '?wait=15000');
    expect(renewed.body).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'renewed' } } });
    expect(fixture.tokenRequests('client_credentials')).toEqual(
      Array(2).fill({ clientId: 'svc-jwt', grantType: 'client_credentials', ok: true }),
    );
    expect(new Set(fixture.clientAuthentications())).toEqual(new Set(['private_key_jwt']));
    expect(fixture.clientAssertions().map((assertion) => assertion.audience)).toEqual([fixture.issuer, fixture.issuer]);

    // What GET shows can be sent back: "***" keeps the key, nothing changes, no new token.
    const shown = await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`);
    const settings = { ...shown.body.auth };
    delete settings.state;
    delete settings.expiresAt;
    const sentBack = await api<Toolset>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { name: 'signed', auth: settings });
    expect(sentBack.status).toBe(200);
    expect(sentBack.body.auth).toMatchObject({ state: 'authorized', privateKey: '***' });
    expect(fixture.tokenRequests('client_credentials')).toHaveLength(2);

    const answers = JSON.stringify([
      created.body,
      run.body,
      renewed.body,
      shown.body,
      sentBack.body,
      (await api(stack.apiUrl, 'GET', '/toolsets')).body,
    ]);
    const dump = JSON.stringify(await rawDatabaseDump(stack.config));
    const stored = (await rawDatabaseDump(stack.config)).toolsets.find((doc) => String((doc as { _id: unknown })._id) === id) as {
      auth: { privateKey: string };
    };
    expect(stored.auth.privateKey).toMatch(/^enc:v1:/);
    const pemLines = pem.split('\n').filter((line) => line.length > 40);
    for (const secret of [...pemLines, ...keyMaterial(privateKey), ...fixture.issuedTokens()]) {
      expect(answers).not.toContain(secret);
      expect(dump).not.toContain(secret);
    }
  }, 90_000);

  it('refuses unusable keys and contradicting settings with the path', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const cases: [Record<string, unknown>, string][] = [
      [{ grant: 'client_credentials', clientId: 'svc', privateKey: 'not a key' }, '/auth/privateKey'],
      [{ grant: 'client_credentials', clientId: 'svc', privateKey: ec, signingAlgorithm: 'RS256' }, '/auth/signingAlgorithm'],
      [{ grant: 'client_credentials', clientId: 'svc', privateKey: ec, clientSecret: 's' }, '/auth/clientSecret'],
      [{ grant: 'client_credentials', clientId: 'svc', tokenEndpointAuthMethod: 'private_key_jwt' }, '/auth/privateKey'],
      [{ grant: 'client_credentials', privateKey: ec }, '/auth/clientId'],
      [{ grant: 'client_credentials', clientId: 'svc', privateKey: '***' }, '/auth/privateKey'],
    ];
    for (const [auth, path] of cases) {
      const refused = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/toolsets', {
        url: 'http://127.0.0.1:1/mcp',
        auth: { type: 'oauth', ...auth },
      });
      expect({ auth, status: refused.status, paths: refused.body.errors?.map((error) => error.path) }).toEqual({
        auth,
        status: 400,
        paths: [path],
      });
      expect(JSON.stringify(refused.body)).not.toContain(ec.split('\n')[1]);
    }
  }, 30_000);

  it('PATCH auth: null removes OAuth and drops the grant; refused while the server still wants OAuth', async () => {
    fixture = await startOAuthFixtureServer({
      clients: [{ client_id: 'svc', client_secret: 'svc-secret-41f0', redirect_uris: [], grant_types: ['client_credentials'] }],
    });
    plain = await startFixtureServer({ tools: basicTools() });
    const created = await api<Toolset>(stack.apiUrl, 'POST', '/toolsets', {
      url: fixture.url,
      auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: 'svc-secret-41f0' },
    });
    expect(created.body.auth).toMatchObject({ state: 'authorized' });
    const id = created.body.id;
    const grants = async () => ((await rawDatabaseDump(stack.config)).oauth_grants ?? []).filter((doc) => JSON.stringify(doc).includes(id));
    expect(await grants()).toHaveLength(1);

    const stillOAuth = await api<{ code: string }>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { auth: null });
    expect(stillOAuth.status).toBe(422);
    expect((await api<Toolset>(stack.apiUrl, 'GET', `/toolsets/${id}`)).body.auth).toMatchObject({ state: 'authorized' });

    const removed = await api<Toolset & { url: string }>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { url: plain.url, auth: null });
    expect(removed.status).toBe(200);
    expect(removed.body).not.toHaveProperty('auth');
    expect(removed.body).toMatchObject({ url: plain.url });
    expect(removed.body.toolCount).toBeGreaterThan(0);
    expect(await grants()).toEqual([]);
    const stored = (await rawDatabaseDump(stack.config)).toolsets.find((doc) => String((doc as { _id: unknown })._id) === id);
    expect(stored).not.toHaveProperty('auth');
    const authorize = await api<{ code: string }>(stack.apiUrl, 'POST', `/toolsets/${id}/authorize`);
    expect(authorize.body.code).toBe('TOOLSET_NOT_OAUTH');
    const call = await api<{ text: string }>(stack.apiUrl, 'POST', `/toolsets/${id}/tools/echo/call`, { arguments: { message: 'plain' } });
    expect(call.body.text).toBe('plain');
    const again = await api<Toolset>(stack.apiUrl, 'PATCH', `/toolsets/${id}`, { auth: null });
    expect(again.status).toBe(200);
  }, 60_000);
});
