/**
 * The SDK's `OAuthClientProvider` over one grant being obtained, in memory: the SDK's `auth()`
 * does discovery, client registration (pre-registered, then the Client ID Metadata Document, then
 * Dynamic Client Registration), PKCE, the `resource` indicator and scope selection, and this
 * provider only keeps what it is given and captures the authorization URL instead of redirecting.
 * A client with a private key authenticates at the token endpoint with a signed assertion
 * (`private_key_jwt`), made by the SDK's own `createPrivateKeyJwtAuth` for every token request.
 */
import type { AddClientAuthentication, OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { isHttpsUrl } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { withTokens, type OAuthClientSettings, type OAuthGrant } from './grant.js';

export class GrantProvider implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  /** private_key_jwt: signs a client assertion into every token request (the SDK calls it instead of its own client authentication). */
  readonly addClientAuthentication?: AddClientAuthentication;
  private verifier: string | undefined;

  constructor(
    public grant: OAuthGrant,
    private readonly settings: OAuthClientSettings,
    private readonly options: { state?: string; codeVerifier?: string } = {},
  ) {
    this.verifier = options.codeVerifier;
    const { clientId, clientSecret, tokenEndpointAuthMethod, privateKey, signingAlgorithm } = settings;
    if (!grant.client && clientId !== undefined) {
      // Pre-registered: no issuer stamp, so the SDK binds it to the first authorization server that accepts it.
      // A method named here is used when the server lists it (the SDK's choice otherwise).
      this.grant = {
        ...grant,
        client: {
          client_id: clientId,
          ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
          ...(tokenEndpointAuthMethod === undefined ? {} : { token_endpoint_auth_method: tokenEndpointAuthMethod }),
        },
      };
    }
    if (
      tokenEndpointAuthMethod === 'private_key_jwt' &&
      clientId !== undefined &&
      privateKey !== undefined &&
      signingAlgorithm !== undefined
    )
      // RFC 7523 §3: iss and sub are the client id; aud the authorization server's issuer (its token endpoint without metadata).
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey: JSON.parse(privateKey) as Record<string, unknown>,
        alg: signingAlgorithm,
      });
  }

  get redirectUrl(): string | undefined {
    return this.grant.flow === 'client_credentials' ? undefined : this.settings.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    const url = this.settings.clientMetadataUrl;
    return url !== undefined && isHttpsUrl(url) ? url : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const interactive = this.grant.flow === 'authorization_code';
    return {
      client_name: this.settings.clientName ?? 'mcpflow',
      redirect_uris: interactive ? [this.settings.redirectUrl] : [],
      grant_types: interactive ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: interactive ? ['code'] : [],
      token_endpoint_auth_method:
        this.settings.tokenEndpointAuthMethod ?? (this.settings.clientSecret === undefined ? 'none' : 'client_secret_basic'),
      ...(this.settings.scopes?.length ? { scope: this.settings.scopes.join(' ') } : {}),
    };
  }

  state(): string {
    return this.options.state ?? '';
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.grant.client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.grant = { ...this.grant, client: { ...client } };
  }

  tokens(): OAuthTokens | undefined {
    return this.grant.tokens as OAuthTokens | undefined;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.grant = withTokens(this.grant, tokens as unknown as Record<string, unknown>);
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier: the authorization was not started here');
    return this.verifier;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.grant.flow !== 'client_credentials') return undefined;
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const next = { ...this.grant };
    if (scope === 'all' || scope === 'tokens') {
      delete next.tokens;
      delete next.expiresAt;
    }
    // A pre-registered client is the user's to change, never forgotten here.
    if ((scope === 'all' || scope === 'client') && this.settings.clientId === undefined) delete next.client;
    if (scope === 'all' || scope === 'discovery') delete next.discovery;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    this.grant = next;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.grant = { ...this.grant, discovery: JSON.parse(JSON.stringify(state)) as Record<string, unknown> };
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.grant.discovery as OAuthDiscoveryState | undefined;
  }
}
