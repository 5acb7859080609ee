import { afterEach, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpErrorCode, type McpError } from '../errors.js';
import { startOAuthFixtureServer, type OAuthFixtureServer } from '../testing/oauth-fixture-server.js';
import { beginAuthorization, completeAuthorization, obtainClientCredentials, type OAuthContext } from './authorize.js';
import type { OAuthGrant } from './grant.js';
import { createOAuthCredentials, createOAuthFetch, type OAuthGrantStore } from './oauth-fetch.js';

const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

/** A grant in memory with a lock, as the Redis-backed store behaves across workers. */
function memoryStore(
  initial?: OAuthGrant,
  lockHeldMs = 0,
): OAuthGrantStore & { grant?: OAuthGrant; lostReasons: string[]; lockTakes: number } {
  let queue: Promise<unknown> = Promise.resolve();
  const store = {
    grant: initial,
    lostReasons: [] as string[],
    lockTakes: 0,
    load: async () => store.grant,
    save: async (grant: OAuthGrant) => {
      store.grant = grant;
    },
    exclusive: <T>(work: () => Promise<T>): Promise<T> => {
      store.lockTakes += 1;
      // lockHeldMs: another process holds the lock this long first (its renewal is slow).
      const waited = lockHeldMs > 0 ? queue.then(() => new Promise((resolve) => setTimeout(resolve, lockHeldMs))) : queue;
      const result = waited.then(work, work);
      queue = result.catch(() => undefined);
      return result;
    },
    lost: async (reason: string) => {
      store.lostReasons.push(reason);
      store.grant = undefined;
    },
  };
  return store;
}

/** What a person's browser does: open the URL, get redirected back with the code. */
async function approve(authorizationUrl: string): Promise<{ code: string; state: string; iss?: string }> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = new URL(String(response.headers.get('location')));
  return {
    code: String(location.searchParams.get('code')),
    state: String(location.searchParams.get('state')),
    iss: location.searchParams.get('iss') ?? undefined,
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: McpError) => error,
  );

describe('OAuth against the SDK-built fixture', () => {
  let server: OAuthFixtureServer;
  afterEach(async () => server?.close());

  const context = (settings: Partial<OAuthContext['settings']> = {}): OAuthContext => ({
    serverUrl: server.url,
    fetch,
    settings: { redirectUrl: REDIRECT, ...settings },
  });

  async function authorized(): Promise<OAuthGrant> {
    const { authorizationUrl, pending } = await beginAuthorization(context(), { state: 's1' });
    const url = new URL(authorizationUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('resource')).toBe(server.url);
    expect(url.searchParams.get('scope')).toBe('mcp:read');
    const callback = await approve(authorizationUrl);
    expect(callback.state).toBe('s1');
    return completeAuthorization(context(), pending, callback);
  }

  it('authorization code + PKCE with a dynamically registered client, then calls with the bearer token', async () => {
    server = await startOAuthFixtureServer();
    const grant = await authorized();
    expect(grant.origin).toBe(server.origin);
    expect(server.registeredClients()).toHaveLength(1);
    const store = memoryStore(grant);
    const connection = await connectMcp({ url: server.url, fetch: createOAuthFetch({ ...context(), store }) });
    await connection.callTool('echo', { message: 'hi' });
    await connection.close();
    expect(server.seenTokens().map((seen) => seen.token)).toEqual([grant.tokens?.access_token]);
  });

  it('uses a pre-registered client and refuses a callback whose iss names another server', async () => {
    server = await startOAuthFixtureServer({
      noRegistration: true,
      clients: [{ client_id: 'pre', client_secret: 'pre-secret', redirect_uris: [REDIRECT] }],
    });
    const settings = { clientId: 'pre', clientSecret: 'pre-secret' };
    const { authorizationUrl, pending } = await beginAuthorization(context(settings), { state: 's' });
    expect(new URL(authorizationUrl).searchParams.get('client_id')).toBe('pre');
    const callback = await approve(authorizationUrl);
    const wrongIssuer = await failure(completeAuthorization(context(settings), pending, { ...callback, iss: 'https://evil.example/' }));
    expect(wrongIssuer?.code).toBe(McpErrorCode.AUTH_FAILED);
    const grant = await completeAuthorization(context(settings), pending, callback);
    expect(grant.tokens?.access_token).toEqual(expect.any(String));
    // The refused callback never reached the token endpoint.
    expect(server.clientAuthentications()).toEqual(['client_secret_basic']);
  });

  it('refreshes an expired token exactly once for 20 concurrent calls on two connections (rotating refresh tokens)', async () => {
    server = await startOAuthFixtureServer({ accessTokenTtlMs: 60_000 });
    const store = memoryStore(await authorized());
    const connections = await Promise.all(
      [0, 1].map(() => connectMcp({ url: server.url, fetch: createOAuthFetch({ ...context(), store, refreshSkewMs: 0 }) })),
    );
    server.expireAccessTokens();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => connections[index % 2].callTool('echo', { message: String(index) })),
    );
    expect(results.every((result) => !result.isError)).toBe(true);
    expect(server.tokenRequests('refresh_token')).toEqual([{ clientId: expect.any(String), grantType: 'refresh_token', ok: true }]);
    await Promise.all(connections.map((connection) => connection.close()));
  });

  it('connections of one process that find the token expiring share one renewal: one wait at the lock, one refresh', async () => {
    server = await startOAuthFixtureServer({ accessTokenTtlMs: 60_000 });
    const store = Object.assign(memoryStore({ ...(await authorized()), expiresAt: Date.now() - 1 }), { key: 'toolset-1' });
    const connections = await Promise.all(
      Array.from({ length: 20 }, () => {
        const credentials = createOAuthCredentials({ ...context(), store });
        return connectMcp({ url: server.url, fetch: credentials.fetch, prepareCredentials: credentials.prepare });
      }),
    );
    expect(store.lockTakes).toBe(1);
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    await Promise.all(connections.map((connection) => connection.close()));
  });

  it('waiting for a renewal held up elsewhere does not count against the connect deadline', async () => {
    server = await startOAuthFixtureServer({ accessTokenTtlMs: 60_000 });
    const store = memoryStore({ ...(await authorized()), expiresAt: Date.now() - 1 }, 1_500);
    const credentials = createOAuthCredentials({ ...context(), store });
    const connection = await connectMcp({
      url: server.url,
      connectTimeoutMs: 500,
      fetch: credentials.fetch,
      prepareCredentials: credentials.prepare,
    });
    await connection.callTool('echo', { message: 'after the wait' });
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    await connection.close();
  });

  it('a handshake that spent its deadline waiting for a renewal after a 401 is tried once more', async () => {
    server = await startOAuthFixtureServer({ accessTokenTtlMs: 60_000 });
    const store = memoryStore(await authorized(), 1_500);
    server.expireAccessTokens();
    const credentials = createOAuthCredentials({ ...context(), store });
    const connection = await connectMcp({
      url: server.url,
      transport: 'streamable-http',
      protocolVersion: '2025-11-25',
      connectTimeoutMs: 500,
      fetch: credentials.fetch,
      prepareCredentials: credentials.prepare,
      credentialRenewalMs: credentials.renewalMs,
    });
    await connection.callTool('echo', { message: 'after the wait' });
    expect(server.tokenRequests('refresh_token')).toHaveLength(1);
    await connection.close();
  });

  it('a revoked grant ends in MCP_AUTH_REQUIRED and tells the store it is lost', async () => {
    server = await startOAuthFixtureServer();
    const store = memoryStore(await authorized());
    const connection = await connectMcp({ url: server.url, fetch: createOAuthFetch({ ...context(), store }) });
    server.revokeAll();
    const error = await failure(connection.callTool('echo', { message: 'x' }));
    expect(error?.code).toBe(McpErrorCode.AUTH_REQUIRED);
    expect(store.lostReasons).toHaveLength(1);
    expect(store.grant).toBeUndefined();
    await connection.close();
  });

  it('never sends the token to another origin', async () => {
    server = await startOAuthFixtureServer();
    const other = await startOAuthFixtureServer();
    try {
      const store = memoryStore(await authorized());
      const error = await failure(connectMcp({ url: other.url, fetch: createOAuthFetch({ ...context(), serverUrl: other.url, store }) }));
      expect(error?.code).toBe(McpErrorCode.AUTH_REQUIRED);
      expect(other.seenTokens()).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('asks for the larger scope on a 403 insufficient_scope (step-up)', async () => {
    server = await startOAuthFixtureServer({ toolScopes: { add: 'mcp:write' }, scopesSupported: ['mcp:read', 'mcp:write'] });
    const store = memoryStore(await authorizedWith(['mcp:read']));
    const connection = await connectMcp({ url: server.url, fetch: createOAuthFetch({ ...context(), store }) });
    const error = await failure(connection.callTool('add', { a: 1, b: 2 }));
    expect(error?.code).toBe(McpErrorCode.AUTH_REQUIRED);
    await connection.close();
    const { authorizationUrl } = await beginAuthorization(context(), { state: 's', scope: 'mcp:read mcp:write' });
    expect(new URL(authorizationUrl).searchParams.get('scope')).toBe('mcp:read mcp:write');
  });

  async function authorizedWith(scopes: string[]): Promise<OAuthGrant> {
    const { authorizationUrl, pending } = await beginAuthorization(context(), { state: 's', scope: scopes.join(' ') });
    return completeAuthorization(context(), pending, await approve(authorizationUrl));
  }

  it.each([
    ['client_secret_basic', ['client_secret_basic', 'client_secret_post']],
    ['client_secret_post', ['client_secret_post']],
  ])('client credentials with %s', async (method, advertised) => {
    server = await startOAuthFixtureServer({
      tokenEndpointAuthMethods: advertised,
      clients: [{ client_id: 'svc', client_secret: 'svc-secret', redirect_uris: [], grant_types: ['client_credentials'] }],
    });
    const settings = { clientId: 'svc', clientSecret: 'svc-secret' };
    const grant = await obtainClientCredentials(context(settings));
    expect(grant.flow).toBe('client_credentials');
    expect(server.clientAuthentications()).toEqual([method]);
    const store = memoryStore(grant);
    const connection = await connectMcp({ url: server.url, fetch: createOAuthFetch({ ...context(settings), store, refreshSkewMs: 0 }) });
    server.expireAccessTokens();
    await connection.callTool('echo', { message: 'again' });
    expect(server.tokenRequests('client_credentials')).toHaveLength(2);
    await connection.close();
  });
});
