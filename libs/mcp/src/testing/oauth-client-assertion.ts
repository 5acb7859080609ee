/**
 * `private_key_jwt` client authentication (RFC 7523 §2.2, §3) for the OAuth fixture's token
 * endpoint: the assertion is verified with the public keys the client was registered with (its
 * `jwks`), issuer and subject its client id, audience the authorization server (issuer or token
 * endpoint), not expired, its `jti` never seen before. A verified request continues as that client
 * (`client_id` set, the assertion removed), so the SDK's token handler serves it like any other;
 * a client registered for `private_key_jwt` gets nothing without a valid assertion. `jose`
 * verifies (the library the SDK signs with).
 */
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { NextFunction, Request, Response } from 'express';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** What a verified assertion said, for tests to look at. */
export interface VerifiedAssertion {
  clientId: string;
  audience: string | string[] | undefined;
  algorithm: string;
}

export interface ClientAssertionCheck {
  middleware(req: Request, res: Response, next: NextFunction): Promise<void>;
  verified(): VerifiedAssertion[];
}

export function clientAssertionCheck(store: OAuthRegisteredClientsStore, audiences: string[]): ClientAssertionCheck {
  const seenIds = new Set<string>();
  const verified: VerifiedAssertion[] = [];
  const refuse = (res: Response, description: string) =>
    void res.status(401).json({ error: 'invalid_client', error_description: description });

  const middleware = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (body.client_assertion_type === undefined) {
      const client = (await store.getClient(String(body.client_id ?? ''))) as OAuthClientInformationFull | undefined;
      if (client?.token_endpoint_auth_method === 'private_key_jwt') return refuse(res, 'this client authenticates with private_key_jwt');
      return next();
    }
    if (body.client_assertion_type !== ASSERTION_TYPE || typeof body.client_assertion !== 'string')
      return refuse(res, 'unsupported client_assertion_type');
    const assertion = body.client_assertion;
    let clientId: string;
    try {
      clientId = String(decodeJwt(assertion).iss);
    } catch {
      return refuse(res, 'the client assertion is not a JWT');
    }
    const client = (await store.getClient(clientId)) as OAuthClientInformationFull | undefined;
    const jwks = client?.jwks as JSONWebKeySet | undefined;
    if (!client || !jwks) return refuse(res, 'unknown client, or one without registered keys');
    if (body.client_id !== undefined && body.client_id !== clientId) return refuse(res, 'client_id differs from the assertion issuer');
    try {
      const { payload, protectedHeader } = await jwtVerify(assertion, createLocalJWKSet(jwks), {
        issuer: clientId,
        subject: clientId,
        audience: audiences,
        requiredClaims: ['exp', 'jti'],
      });
      if (seenIds.has(String(payload.jti))) return refuse(res, 'the client assertion was used before');
      seenIds.add(String(payload.jti));
      verified.push({ clientId, audience: payload.aud, algorithm: protectedHeader.alg });
    } catch (error) {
      return refuse(res, `client assertion refused: ${error instanceof Error ? error.message : String(error)}`);
    }
    const rest: Record<string, unknown> = { ...body, client_id: clientId };
    delete rest.client_assertion;
    delete rest.client_assertion_type;
    req.body = rest;
    res.locals.clientAuthentication = 'private_key_jwt';
    next();
  };

  return { middleware, verified: () => [...verified] };
}
