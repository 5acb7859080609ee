/**
 * An OAuth-protected MCP server for tests, in-process on 127.0.0.1: the authorization server (RFC
 * 8414 metadata, authorize, token, registration) and the protected resource (RFC 9728 metadata,
 * the MCP endpoint behind bearer verification) on one origin, built from the SDK's server auth
 * handlers. Authorization is approved at once (the redirect carries the code), access tokens live
 * `accessTokenTtlMs`, refresh tokens rotate. The SDK's token handler knows neither
 * `client_secret_basic`, `private_key_jwt` nor the client credentials grant: small routes in front
 * add them (a `private_key_jwt` client is pre-registered with its public keys as `jwks`).
 *
 *   const server = await startOAuthFixtureServer({ accessTokenTtlMs: 2000 });
 *   … toolset url: server.url …
 *   expect(server.tokenRequests('refresh_token')).toHaveLength(1);
 */
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authorizationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { clientRegistrationHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/register.js';
import { tokenHandler } from '@modelcontextprotocol/sdk/server/auth/handlers/token.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import express, { type NextFunction, type Request, type Response } from 'express';
import { createFixtureMcpServer, FixtureCounters, type FixtureTool } from './fixture-mcp-server.js';
import { basicTools } from './fixture-tools.js';
import { clientAssertionCheck, type VerifiedAssertion } from './oauth-client-assertion.js';
import { FixtureAuthorizationServer, type GrantType } from './oauth-authorization-server.js';

export interface OAuthFixtureOptions {
  tools?: FixtureTool[];
  /** Default 60 s. */
  accessTokenTtlMs?: number;
  /** Advertised in both metadata documents; default `['mcp:read']`. */
  scopesSupported?: string[];
  /** A tool that needs a scope the token lacks answers 403 `insufficient_scope` naming it (step-up). */
  toolScopes?: Record<string, string>;
  /** Pre-registered clients (id, secret or `jwks` with `token_endpoint_auth_method: "private_key_jwt"`, redirect URIs, grant types). */
  clients?: OAuthClientInformationFull[];
  /** No registration endpoint: only pre-registered clients work. */
  noRegistration?: boolean;
  /** Token endpoint client authentication advertised; default basic, post, private_key_jwt and none. */
  tokenEndpointAuthMethods?: string[];
}

/** A bearer token presented on a tools/call, and whom it was issued for. */
export interface SeenToken {
  tool: string;
  token: string;
  clientId: string;
  subject: string;
}

export interface OAuthFixtureServer {
  /** The MCP endpoint (Streamable HTTP, stateless). */
  url: string;
  origin: string;
  issuer: string;
  /** Token endpoint requests, optionally of one grant type, in order. */
  tokenRequests(grantType?: GrantType): { clientId: string; grantType: GrantType; ok: boolean }[];
  /** How each token request authenticated its client: client_secret_basic, client_secret_post, private_key_jwt or none. */
  clientAuthentications(): string[];
  /** The private_key_jwt assertions verified, in order. */
  clientAssertions(): VerifiedAssertion[];
  /** Bearer tokens presented on tools/call, in order. */
  seenTokens(): SeenToken[];
  calls(tool?: string): number;
  /** Every access and refresh token issued so far. */
  issuedTokens(): string[];
  registeredClients(): OAuthClientInformationFull[];
  revokeAll(): void;
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export async function startOAuthFixtureServer(options: OAuthFixtureOptions = {}): Promise<OAuthFixtureServer> {
  const app = express();
  const http = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => http.once('listening', resolve).once('error', reject));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const issuerUrl = new URL(`${origin}/`);
  const resourceUrl = new URL(`${origin}/mcp`);
  const scopesSupported = options.scopesSupported ?? ['mcp:read'];
  const provider = new FixtureAuthorizationServer({
    issuer: issuerUrl,
    accessTokenTtlMs: options.accessTokenTtlMs ?? 60_000,
    clients: options.clients ?? [],
  });
  const store = provider.clientsStore;
  const oauthMetadata = {
    ...createOAuthMetadata({ provider, issuerUrl, scopesSupported }),
    token_endpoint_auth_methods_supported: options.tokenEndpointAuthMethods ?? [
      'client_secret_basic',
      'client_secret_post',
      'private_key_jwt',
      'none',
    ],
    token_endpoint_auth_signing_alg_values_supported: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    ...(options.noRegistration ? { registration_endpoint: undefined } : {}),
  };
  const resourceMetadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  const counters = new FixtureCounters();
  const seen: SeenToken[] = [];
  const clientAuthentications: string[] = [];
  const tokenEndpoint = new URL('/token', origin).href;
  const assertions = clientAssertionCheck(store, [issuerUrl.href, origin, tokenEndpoint]);

  app.use(mcpAuthMetadataRouter({ oauthMetadata, resourceServerUrl: resourceUrl, scopesSupported }));
  app.use('/authorize', authorizationHandler({ provider, rateLimit: false }));
  app.post('/token', express.urlencoded({ extended: false }), basicClientAuthentication, assertions.middleware, (req, res, next) => {
    const byAssertion = res.locals.clientAuthentication === 'private_key_jwt';
    clientAuthentications.push(
      byAssertion
        ? 'private_key_jwt'
        : req.headers.authorization?.startsWith('Basic ')
          ? 'client_secret_basic'
          : req.body?.client_secret
            ? 'client_secret_post'
            : 'none',
    );
    if (req.body?.grant_type !== 'client_credentials') return next();
    res.setHeader('Cache-Control', 'no-store');
    const client = store.getClient(String(req.body.client_id ?? '')) as OAuthClientInformationFull | undefined;
    const secretGood = !!client?.client_secret && client.client_secret === req.body.client_secret;
    if (!client || !(byAssertion || secretGood))
      return void res.status(401).json({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
    const scopes = typeof req.body.scope === 'string' ? req.body.scope.split(' ').filter(Boolean) : [];
    res.json(provider.clientCredentials(client, scopes, typeof req.body.resource === 'string' ? req.body.resource : undefined));
  });
  app.use('/token', tokenHandler({ provider, rateLimit: false }));
  if (!options.noRegistration) app.use('/register', clientRegistrationHandler({ clientsStore: store, rateLimit: false }));

  app.all(
    '/mcp',
    requireBearerAuth({ verifier: provider, resourceMetadataUrl }),
    express.json(),
    (req: Request, res: Response, next: NextFunction) => {
      const auth = req.auth;
      const body = req.body as { method?: string; params?: { name?: string } } | undefined;
      if (!auth || body?.method !== 'tools/call') return next();
      const tool = String(body.params?.name);
      const needed = options.toolScopes?.[tool];
      if (needed !== undefined && !auth.scopes.includes(needed)) {
        const wanted = [...new Set([...auth.scopes, needed])].join(' ');
        res.setHeader(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope="${wanted}", resource_metadata="${resourceMetadataUrl}", error_description="${tool} needs ${needed}"`,
        );
        return void res.status(403).json({ error: 'insufficient_scope', error_description: `${tool} needs ${needed}` });
      }
      seen.push({ tool, token: auth.token, clientId: auth.clientId, subject: String(auth.extra?.subject) });
      next();
    },
    async (req: Request, res: Response) => {
      // Stateless: a server and a transport per request, so nothing outlives it.
      const server = createFixtureMcpServer('mcpflow-oauth-fixture', options.tools ?? basicTools(), undefined, counters);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void server.close().catch(() => undefined));
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );

  return {
    url: resourceUrl.href,
    origin,
    issuer: issuerUrl.href,
    tokenRequests: (grantType) => provider.tokenRequests.filter((request) => grantType === undefined || request.grantType === grantType),
    seenTokens: () => [...seen],
    clientAuthentications: () => [...clientAuthentications],
    clientAssertions: () => assertions.verified(),
    calls: (tool) => (tool === undefined ? [...counters.calls.values()].reduce((a, b) => a + b, 0) : (counters.calls.get(tool) ?? 0)),
    registeredClients: () => provider.registeredClients(),
    issuedTokens: () => [...provider.issued],
    revokeAll: () => provider.revokeAll(),
    expireAccessTokens: () => provider.expireAccessTokens(),
    close: async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

/** `client_secret_basic` → the body fields the SDK's client authentication reads (RFC 6749 §2.3.1: form-encoded, then base64). */
function basicClientAuthentication(req: Request, _res: Response, next: NextFunction): void {
  const header = req.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    req.body = {
      ...req.body,
      client_id: decodeURIComponent(decoded.slice(0, colon)),
      client_secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  }
  next();
}
