import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import { connectMcp } from '../connect.js';
import { McpErrorCode, type McpError } from '../errors.js';
import { startOAuthFixtureServer, type OAuthFixtureServer } from '../testing/oauth-fixture-server.js';
import { beginAuthorization, completeAuthorization, obtainClientCredentials, renewGrant, type OAuthContext } from './authorize.js';
import type { OAuthGrant } from './grant.js';
import { createOAuthFetch, type OAuthGrantStore } from './oauth-fetch.js';
import { readSigningKey, SigningKeyError } from './signing-key.js';

const REDIRECT = 'http://127.0.0.1:1/oauth/callback';

const publicJwk = (key: KeyObject) => key.export({ format: 'jwk' }) as Record<string, unknown>;

function keyPair(kind: 'ec' | 'rsa' | 'ed25519') {
  if (kind === 'ec') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (kind === 'rsa') return generateKeyPairSync('rsa', { modulusLength: 2048 });
  return generateKeyPairSync('ed25519');
}

/** A grant in memory whose renewals take turns (as under the Redis lock): concurrent 401s renew once. */
function heldStore(grant: OAuthGrant): OAuthGrantStore {
  let held = grant;
  let turn: Promise<unknown> = Promise.resolve();
  return {
    load: async () => held,
    save: async (next) => {
      held = next;
    },
    exclusive: <T>(work: () => Promise<T>): Promise<T> => {
      const result = turn.then(work, work);
      turn = result.catch(() => undefined);
      return result;
    },
    lost: async () => undefined,
  };
}

const failure = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error as SigningKeyError;
  }
  return undefined;
};

describe('readSigningKey', () => {
  it('reads PEMs of every encoding and JWKs, and picks the algorithm the key signs with', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    const ed = generateKeyPairSync('ed25519').privateKey;
    expect(readSigningKey(rsa.export({ format: 'pem', type: 'pkcs1' }) as string).algorithm).toBe('RS256');
    expect(readSigningKey(rsa.export({ format: 'pem', type: 'pkcs8' }) as string, 'PS256').algorithm).toBe('PS256');
    expect(readSigningKey(p384.export({ format: 'pem', type: 'sec1' }) as string).algorithm).toBe('ES384');
    expect(readSigningKey({ ...publicJwk(ed), d: (ed.export({ format: 'jwk' }) as { d: string }).d }).algorithm).toBe('EdDSA');
    const jwk = { ...(rsa.export({ format: 'jwk' }) as Record<string, unknown>), alg: 'RS512', kid: 'k1' };
    expect(readSigningKey(jwk).algorithm).toBe('RS512');
    expect(readSigningKey(JSON.stringify(jwk)).algorithm).toBe('RS512');
    expect(JSON.parse(readSigningKey(jwk).jwk)).toEqual(rsa.export({ format: 'jwk' }));
  });

  it('refuses what cannot sign an assertion, naming the field', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(failure(() => readSigningKey(ec.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string, 'RS256'))).toMatchObject({
      field: 'signingAlgorithm',
    });
    expect(failure(() => readSigningKey(publicJwk(ec.publicKey)))).toMatchObject({ field: 'privateKey' });
    expect(failure(() => readSigningKey(ec.publicKey.export({ format: 'pem', type: 'spki' }) as string))).toMatchObject({
      field: 'privateKey',
    });
    expect(failure(() => readSigningKey('not a key'))).toBeInstanceOf(SigningKeyError);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(failure(() => readSigningKey(small.export({ format: 'pem', type: 'pkcs8' }) as string))?.message).toMatch(/2048/);
    const encrypted = ec.privateKey.export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'p' }) as string;
    expect(failure(() => readSigningKey(encrypted))).toMatchObject({ field: 'privateKey' });
  });
});

describe('private_key_jwt against the SDK-built fixture', () => {
  let server: OAuthFixtureServer;
  afterEach(async () => server?.close());

  const context = (settings: Partial<OAuthContext['settings']> = {}): OAuthContext => ({
    serverUrl: server.url,
    fetch,
    settings: { redirectUrl: REDIRECT, ...settings },
  });

  it.each(['ec', 'rsa', 'ed25519'] as const)('client credentials with a signed assertion (%s key), renewed the same way', async (kind) => {
    const { publicKey, privateKey } = keyPair(kind);
    server = await startOAuthFixtureServer({
      clients: [
        {
          client_id: 'svc-jwt',
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk(publicKey)] },
        },
      ],
    });
    const key = readSigningKey(privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    const settings = {
      clientId: 'svc-jwt',
      tokenEndpointAuthMethod: 'private_key_jwt' as const,
      privateKey: key.jwk,
      signingAlgorithm: key.algorithm,
    };
    const grant = await obtainClientCredentials(context(settings));
    expect(grant.flow).toBe('client_credentials');
    const connection = await connectMcp({
      url: server.url,
      fetch: createOAuthFetch({ ...context(settings), store: heldStore(grant), refreshSkewMs: 0 }),
    });
    server.expireAccessTokens();
    await connection.callTool('echo', { message: 'after expiry' });
    await connection.close();
    expect(server.tokenRequests('client_credentials')).toEqual(
      Array(2).fill({ clientId: 'svc-jwt', grantType: 'client_credentials', ok: true }),
    );
    expect(server.clientAuthentications()).toEqual(['private_key_jwt', 'private_key_jwt']);
    expect(server.clientAssertions().map((assertion) => [assertion.algorithm, assertion.audience])).toEqual(
      Array(2).fill([key.algorithm, server.issuer]),
    );
  });

  it('a key the server does not know is refused (MCP_AUTH_FAILED), and a client registered for keys gets nothing without one', async () => {
    const registered = keyPair('ec');
    const other = keyPair('ec');
    server = await startOAuthFixtureServer({
      clients: [
        {
          client_id: 'svc-jwt',
          client_secret: 'also-a-secret',
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk(registered.publicKey)] },
        },
      ],
    });
    const key = readSigningKey(other.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
    const settings = {
      clientId: 'svc-jwt',
      tokenEndpointAuthMethod: 'private_key_jwt' as const,
      privateKey: key.jwk,
      signingAlgorithm: key.algorithm,
    };
    const refused = await obtainClientCredentials(context(settings)).then(
      () => undefined,
      (error: McpError) => error,
    );
    expect(refused?.code).toBe(McpErrorCode.AUTH_FAILED);
    const bySecret = await obtainClientCredentials(context({ clientId: 'svc-jwt', clientSecret: 'also-a-secret' })).then(
      () => undefined,
      (error: McpError) => error,
    );
    expect(bySecret?.code).toBe(McpErrorCode.AUTH_FAILED);
    expect(server.tokenRequests()).toEqual([]);
  });

  it('authorization code: the code exchange and the refresh authenticate with assertions', async () => {
    const { publicKey, privateKey } = keyPair('rsa');
    server = await startOAuthFixtureServer({
      noRegistration: true,
      clients: [
        {
          client_id: 'app',
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicJwk(publicKey)] },
        },
      ],
    });
    const key = readSigningKey(privateKey.export({ format: 'jwk' }) as Record<string, unknown>, 'PS256');
    const settings = {
      clientId: 'app',
      tokenEndpointAuthMethod: 'private_key_jwt' as const,
      privateKey: key.jwk,
      signingAlgorithm: key.algorithm,
    };
    const { authorizationUrl, pending } = await beginAuthorization(context(settings), { state: 's' });
    const location = new URL(String((await fetch(authorizationUrl, { redirect: 'manual' })).headers.get('location')));
    const grant = await completeAuthorization(context(settings), pending, {
      code: String(location.searchParams.get('code')),
      iss: location.searchParams.get('iss') ?? undefined,
    });
    expect(await renewGrant(context(settings), grant)).toMatchObject({ tokens: { access_token: expect.any(String) } });
    expect(server.tokenRequests().map((request) => [request.grantType, request.ok])).toEqual([
      ['authorization_code', true],
      ['refresh_token', true],
    ]);
    expect(server.clientAssertions().map((assertion) => assertion.algorithm)).toEqual(['PS256', 'PS256']);
  });

  it('client_secret_post when asked for, though the server also takes basic', async () => {
    server = await startOAuthFixtureServer({
      clients: [{ client_id: 'svc', client_secret: 'svc-secret', redirect_uris: [], grant_types: ['client_credentials'] }],
    });
    await obtainClientCredentials(context({ clientId: 'svc', clientSecret: 'svc-secret', tokenEndpointAuthMethod: 'client_secret_post' }));
    expect(server.clientAuthentications()).toEqual(['client_secret_post']);
  });
});
