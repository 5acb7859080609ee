/**
 * Obtaining and renewing grants with the SDK's `auth()` orchestrator: the authorization code flow
 * in two halves (begin → a URL for a person; complete → tokens from the code the callback got),
 * the client credentials flow, and a refresh. Each first asks the server itself what it wants
 * (its 401 challenge: `resource_metadata` and `scope`), so the spec's scope precedence holds:
 * the challenge's scope, then the resource metadata's, then the toolset's own.
 */
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpError, McpErrorCode } from '../errors.js';
import type { FetchFunction } from '../types.js';
import { GrantProvider } from './grant-provider.js';
import { originOf, type OAuthClientSettings, type OAuthGrant } from './grant.js';

export interface OAuthContext {
  serverUrl: string;
  settings: OAuthClientSettings;
  /** The SSRF-safe fetch: discovery and token requests go through it too. */
  fetch: FetchFunction;
}

/** What the callback needs to finish an authorization: keep it secret (sealed) and single-use. */
export interface PendingAuthorization {
  grant: OAuthGrant;
  codeVerifier: string;
}

export interface BeginAuthorizationOptions {
  /** The `state` parameter binding the callback to this request. */
  state: string;
  /** A scope the server asked for beyond the current one (403 `insufficient_scope`). */
  scope?: string;
  /** The grant held so far: its registered client and discovered metadata are reused. */
  previous?: OAuthGrant;
}

export async function beginAuthorization(
  context: OAuthContext,
  options: BeginAuthorizationOptions,
): Promise<{ authorizationUrl: string; pending: PendingAuthorization }> {
  const base: OAuthGrant = { origin: originOf(context.serverUrl), flow: 'authorization_code' };
  const reusable = options.previous?.origin === base.origin && options.previous.flow === base.flow ? options.previous : undefined;
  if (reusable?.client) base.client = reusable.client;
  if (reusable?.discovery) base.discovery = reusable.discovery;
  const provider = new GrantProvider(base, context.settings, { state: options.state });
  const challenge = await challengeOf(context);
  const result = await runAuth(provider, context, {
    scope: options.scope ?? challenge.scope,
    resourceMetadataUrl: challenge.resourceMetadataUrl,
  });
  if (result !== 'REDIRECT' || !provider.authorizationUrl) throw authFailed('the authorization server issued tokens without asking anyone');
  return { authorizationUrl: provider.authorizationUrl.href, pending: { grant: provider.grant, codeVerifier: provider.codeVerifier() } };
}

/** Exchanges the code; `iss` (RFC 9207) must name the authorization server the request went to. */
export async function completeAuthorization(
  context: OAuthContext,
  pending: PendingAuthorization,
  callback: { code: string; iss?: string },
): Promise<OAuthGrant> {
  const metadata = pending.grant.discovery?.authorizationServerMetadata as
    { issuer?: string; authorization_response_iss_parameter_supported?: boolean } | undefined;
  if (callback.iss !== undefined && metadata?.issuer !== undefined && callback.iss !== metadata.issuer)
    throw authFailed(`the authorization response came from ${callback.iss}, not from ${metadata.issuer}`);
  if (callback.iss === undefined && metadata?.authorization_response_iss_parameter_supported === true)
    throw authFailed('the authorization response lacks the iss parameter its server promised');
  const provider = new GrantProvider(pending.grant, context.settings, { codeVerifier: pending.codeVerifier });
  await runAuth(provider, context, { authorizationCode: callback.code });
  return provider.grant;
}

/** The client credentials grant (client_secret_basic or client_secret_post, as the server supports). */
export async function obtainClientCredentials(context: OAuthContext, previous?: OAuthGrant): Promise<OAuthGrant> {
  const base: OAuthGrant = { origin: originOf(context.serverUrl), flow: 'client_credentials' };
  if (previous?.origin === base.origin && previous.discovery) base.discovery = previous.discovery;
  const provider = new GrantProvider(base, context.settings);
  const challenge = base.discovery ? {} : await challengeOf(context);
  await runAuth(provider, context, challenge);
  return provider.grant;
}

/**
 * New tokens for a grant: a refresh (rotating refresh tokens are spent), or the client
 * credentials grant again. undefined when only a person can renew it (no refresh token, or the
 * server refused it).
 */
export async function renewGrant(context: OAuthContext, grant: OAuthGrant): Promise<OAuthGrant | undefined> {
  if (grant.flow === 'client_credentials') return obtainClientCredentials(context, grant);
  if (grant.tokens?.refresh_token === undefined) return undefined;
  const provider = new GrantProvider(grant, context.settings, { state: 'refresh' });
  const result = await runAuth(provider, context, {});
  return result === 'AUTHORIZED' ? provider.grant : undefined;
}

async function runAuth(
  provider: GrantProvider,
  context: OAuthContext,
  options: { authorizationCode?: string; scope?: string; resourceMetadataUrl?: URL },
): Promise<'AUTHORIZED' | 'REDIRECT'> {
  try {
    return await auth(provider, { serverUrl: context.serverUrl, fetchFn: context.fetch, ...options });
  } catch (error) {
    if (error instanceof McpError) throw error;
    throw authFailed(error instanceof Error ? error.message : String(error), error);
  }
}

/** The server's answer to an unauthenticated request: where its metadata is and what scope it wants. */
async function challengeOf(context: OAuthContext): Promise<{ scope?: string; resourceMetadataUrl?: URL }> {
  try {
    const response = await context.fetch(context.serverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
    });
    await response.body?.cancel();
    if (response.status !== 401 && response.status !== 403) return {};
    const { scope, resourceMetadataUrl } = extractWWWAuthenticateParams(response);
    return { ...(scope ? { scope } : {}), ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}) };
  } catch {
    // Unreachable now: discovery falls back to the well-known locations and reports what fails there.
    return {};
  }
}

function authFailed(message: string, cause?: unknown): McpError {
  return new McpError(McpErrorCode.AUTH_FAILED, `OAuth: ${message}`, cause === undefined ? {} : { cause });
}
