/**
 * What an OAuth authorization to one MCP server leaves behind: the client it was obtained as, the
 * discovered metadata, and the tokens. Plain JSON, so the caller can seal it whole and store it;
 * the SDK-shaped parts are opaque to everyone outside libs/mcp/src/oauth.
 *
 * The one rule about where a grant may go lives here: a grant belongs to the origin of the server
 * it was obtained for (`origin`), and is never used for, nor sent to, another one.
 */
export type OAuthFlow = 'authorization_code' | 'client_credentials';

/**
 * How the client authenticates at the token endpoint (RFC 8414 names). Absent: a client secret
 * goes `client_secret_basic`, or `client_secret_post` when that is all the server lists; no
 * secret: `none`.
 */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

export interface OAuthGrant {
  /** Origin of the MCP server the grant was obtained for. */
  origin: string;
  flow: OAuthFlow;
  /** The client as registered (SDK `OAuthClientInformationMixed`, `issuer` stamped). */
  client?: Record<string, unknown>;
  /** Protected resource and authorization server metadata (SDK `OAuthDiscoveryState`). */
  discovery?: Record<string, unknown>;
  /** SDK `OAuthTokens`, `issuer` stamped. Absent until a token was obtained. */
  tokens?: Record<string, unknown>;
  /** When the access token expires (ms since the epoch), when the server said (`expires_in`). */
  expiresAt?: number;
  /** The scopes granted (space separated), when the server said. */
  scope?: string;
}

/** How mcpflow presents itself to authorization servers. */
export interface OAuthClientSettings {
  /** A pre-registered client (given on the toolset); otherwise the metadata document or DCR. */
  clientId?: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  /** `private_key_jwt`: the private key as a JWK (JSON, see `readSigningKey`) and the algorithm it signs client assertions with. */
  privateKey?: string;
  signingAlgorithm?: string;
  /** Scopes asked for when neither the server's challenge nor its metadata names any. */
  scopes?: string[];
  /** Where the authorization server sends the browser back (`<PUBLIC_URL>/oauth/callback`). */
  redirectUrl: string;
  /** mcpflow's Client ID Metadata Document (`<PUBLIC_URL>/oauth/client-metadata.json`); only https URLs are used. */
  clientMetadataUrl?: string;
  clientName?: string;
}

export function originOf(url: string): string {
  return new URL(url).origin;
}

/** The only test of whether a grant may be used for a server: obtained for that server's origin. */
export function grantServes(grant: OAuthGrant | undefined, serverUrl: string): grant is OAuthGrant {
  return grant !== undefined && grant.origin === originOf(serverUrl);
}

export function accessTokenOf(grant: OAuthGrant | undefined): string | undefined {
  const token = grant?.tokens?.access_token;
  return typeof token === 'string' ? token : undefined;
}

export function refreshTokenOf(grant: OAuthGrant): string | undefined {
  const token = grant.tokens?.refresh_token;
  return typeof token === 'string' ? token : undefined;
}

/** Tokens as the SDK returned them, with when they expire computed now (expires_in is relative). */
export function withTokens(grant: OAuthGrant, tokens: Record<string, unknown>, now = Date.now()): OAuthGrant {
  const next: OAuthGrant = { ...grant, tokens: { ...tokens } };
  delete next.expiresAt;
  if (typeof tokens.expires_in === 'number') next.expiresAt = now + tokens.expires_in * 1000;
  if (typeof tokens.scope === 'string') next.scope = tokens.scope;
  // Rotation is optional for servers: a refresh answer without a refresh token keeps the old one.
  if (next.tokens && next.tokens.refresh_token === undefined && grant.tokens?.refresh_token !== undefined)
    next.tokens.refresh_token = grant.tokens.refresh_token;
  return next;
}

/** True when the access token is gone or expires within `skewMs`. */
export function needsRefresh(grant: OAuthGrant, skewMs: number, now = Date.now()): boolean {
  if (accessTokenOf(grant) === undefined) return true;
  return grant.expiresAt !== undefined && grant.expiresAt - skewMs <= now;
}
