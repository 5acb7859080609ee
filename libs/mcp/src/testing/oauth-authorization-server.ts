/**
 * The authorization-server half of the OAuth fixture: an SDK `OAuthServerProvider` that approves
 * every authorization at once (redirecting with the code and `iss`), issues short-lived access
 * tokens and rotating refresh tokens (a spent refresh token is refused, like real servers do), and
 * counts what the tests must prove: token requests per client and grant, tokens seen per call.
 */
import { randomBytes } from 'node:crypto';
import type { Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';

interface Grant {
  clientId: string;
  scopes: string[];
  resource?: string;
  /** Who approved: `user-<n>` for each authorization code, the client id for client credentials. */
  subject: string;
}

interface IssuedCode extends Grant {
  challenge: string;
  redirectUri: string;
}

interface IssuedToken extends Grant {
  expiresAt: number;
}

const token = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url')}`;

export interface FixtureAuthorizationServerOptions {
  issuer: URL;
  accessTokenTtlMs: number;
  /** Clients known before any registration (pre-registered). */
  clients: OAuthClientInformationFull[];
  /** The subject each new authorization code is approved as; default `user-<n>`. */
  nextSubject?: () => string;
}

export class FixtureAuthorizationServer implements OAuthServerProvider {
  private readonly clients = new Map<string, OAuthClientInformationFull>();
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, Grant>();
  readonly tokenRequests: { clientId: string; grantType: GrantType; ok: boolean }[] = [];
  /** Every access and refresh token ever issued (a test looks for them where they must not be). */
  readonly issued: string[] = [];
  private approvals = 0;

  constructor(private readonly options: FixtureAuthorizationServerOptions) {
    for (const client of options.clients) this.clients.set(client.client_id, client);
  }

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (clientId) => this.clients.get(clientId),
      registerClient: (client) => {
        const full: OAuthClientInformationFull = {
          ...client,
          client_id: token('client'),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        };
        this.clients.set(full.client_id, full);
        return full;
      },
    };
  }

  registeredClients(): OAuthClientInformationFull[] {
    return [...this.clients.values()];
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = token('code');
    this.approvals += 1;
    this.codes.set(code, {
      clientId: client.client_id,
      scopes: params.scopes ?? [],
      challenge: params.codeChallenge,
      redirectUri: params.redirectUri,
      subject: this.options.nextSubject?.() ?? `user-${this.approvals}`,
      ...(params.resource ? { resource: params.resource.href } : {}),
    });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    target.searchParams.set('iss', this.options.issuer.href);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(client: OAuthClientInformationFull, authorizationCode: string): Promise<string> {
    const code = this.codes.get(authorizationCode);
    if (!code || code.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    return code.challenge;
  }

  async exchangeAuthorizationCode(
    client: OAuthClientInformationFull,
    authorizationCode: string,
    _codeVerifier?: string,
    redirectUri?: string,
    resource?: URL,
  ): Promise<OAuthTokens> {
    const code = this.codes.get(authorizationCode);
    this.codes.delete(authorizationCode);
    const ok = !!code && code.clientId === client.client_id && (redirectUri === undefined || redirectUri === code.redirectUri);
    this.tokenRequests.push({ clientId: client.client_id, grantType: 'authorization_code', ok });
    if (!code || !ok) throw new InvalidGrantError('unknown authorization code');
    if (code.resource !== undefined && resource !== undefined && resource.href !== code.resource)
      throw new InvalidGrantError('resource differs from the authorization request');
    return this.issue(code, true);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, scopes?: string[]): Promise<OAuthTokens> {
    const grant = this.refreshTokens.get(refreshToken);
    // Rotation: a refresh token is good for one use only.
    this.refreshTokens.delete(refreshToken);
    const ok = !!grant && grant.clientId === client.client_id;
    this.tokenRequests.push({ clientId: client.client_id, grantType: 'refresh_token', ok });
    if (!grant || !ok) throw new InvalidGrantError('refresh token unknown, spent or revoked');
    return this.issue({ ...grant, scopes: scopes ?? grant.scopes }, true);
  }

  /** The client credentials grant (the SDK's token handler has none): called by the fixture's own token route. */
  clientCredentials(client: OAuthClientInformationFull, scopes: string[], resource?: string): OAuthTokens {
    this.tokenRequests.push({ clientId: client.client_id, grantType: 'client_credentials', ok: true });
    return this.issue({ clientId: client.client_id, scopes, subject: client.client_id, ...(resource ? { resource } : {}) }, false);
  }

  async verifyAccessToken(accessToken: string): Promise<AuthInfo> {
    const issued = this.accessTokens.get(accessToken);
    if (!issued || issued.expiresAt <= Date.now()) throw new InvalidTokenError('access token unknown, expired or revoked');
    return {
      token: accessToken,
      clientId: issued.clientId,
      scopes: issued.scopes,
      expiresAt: Math.floor(issued.expiresAt / 1000),
      extra: { subject: issued.subject },
      ...(issued.resource ? { resource: new URL(issued.resource) } : {}),
    };
  }

  /** Forgets every token: the next call is refused and so is the next refresh. */
  revokeAll(): void {
    this.accessTokens.clear();
    this.refreshTokens.clear();
  }

  /** Lets every access token expire now (refresh tokens stay good). */
  expireAccessTokens(): void {
    for (const issued of this.accessTokens.values()) issued.expiresAt = 0;
  }

  private issue(grant: Grant, withRefresh: boolean): OAuthTokens {
    const access = token('at');
    this.issued.push(access);
    this.accessTokens.set(access, { ...grant, expiresAt: Date.now() + this.options.accessTokenTtlMs });
    const tokens: OAuthTokens = {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.round(this.options.accessTokenTtlMs / 1000)),
      scope: grant.scopes.join(' '),
    };
    if (withRefresh) {
      const refresh = token('rt');
      this.issued.push(refresh);
      this.refreshTokens.set(refresh, grant);
      tokens.refresh_token = refresh;
    }
    return tokens;
  }
}
