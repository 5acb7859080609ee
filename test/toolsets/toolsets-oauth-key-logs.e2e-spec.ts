import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { startOAuthFixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { startLoggedApi } from '../support/toolsets.js';

interface Toolset {
  id: string;
  auth?: Record<string, unknown>;
}

/** Every piece of a private key that would give it away: its PEM body lines and its JWK private members. */
function keyMaterial(privateKey: KeyObject): string[] {
  const pemLines = (privateKey.export({ format: 'pem', type: 'pkcs8' }) as string).split('\n').filter((line) => line.length > 40);
  const jwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
  return [...pemLines, ...['d', 'p', 'q', 'dp', 'dq', 'qi'].map((member) => jwk[member]).filter(Boolean)];
}

describe('toolsets: a private key never reaches a log line', () => {
  it('create, call, a refused key, PATCH with "***": no key material logged at debug level', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const fixture = await startOAuthFixtureServer({
      clients: [
        {
          client_id: 'svc-rsa',
          redirect_uris: [],
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [publicKey.export({ format: 'jwk' })] },
        },
      ],
    });
    const logged = await startLoggedApi();
    try {
      const jwk = privateKey.export({ format: 'jwk' });
      const auth = { type: 'oauth', grant: 'client_credentials', clientId: 'svc-rsa', privateKey: jwk, signingAlgorithm: 'PS256' };
      const created = await api<Toolset>(logged.url, 'POST', '/toolsets', { url: fixture.url, auth });
      expect(created.status).toBe(201);
      expect(created.body.auth).toMatchObject({ privateKey: '***', signingAlgorithm: 'PS256', state: 'authorized' });
      const call = await api<{ text: string }>(logged.url, 'POST', `/toolsets/${created.body.id}/tools/echo/call`, {
        arguments: { message: 'hi' },
      });
      expect(call.body.text).toBe('hi');
      const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const refused = await api<{ code: string }>(logged.url, 'PATCH', `/toolsets/${created.body.id}`, {
        auth: { ...auth, privateKey: other.export({ format: 'jwk' }) },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe('MCP_AUTH_FAILED');
      const kept = await api(logged.url, 'PATCH', `/toolsets/${created.body.id}`, { auth: { ...auth, privateKey: '***' } });
      expect(kept.status).toBe(200);
      const logs = logged.logs.join('\n');
      expect(logs).toContain('toolset created');
      for (const secret of [...keyMaterial(privateKey), ...keyMaterial(other)]) expect(logs).not.toContain(secret);
    } finally {
      await logged.close();
      await fixture.close();
    }
  }, 60_000);
});
