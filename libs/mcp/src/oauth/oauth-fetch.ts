/**
 * The fetch an OAuth toolset's MCP connections use: it adds the grant's bearer token to requests
 * for the grant's origin (never to any other), renews the token shortly before it expires and
 * once on a 401, and turns what only a person can fix into MCP_AUTH_REQUIRED. Renewal runs under
 * the store's lock and re-reads the grant first, so of many workers holding the same expired
 * token exactly one spends the refresh token; the others pick up its result. Within one process,
 * the requests that need the same grant renewed share one renewal (one waiter at the lock per
 * process, not one per request), and concurrent reads of it share one read.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpError, McpErrorCode } from '../errors.js';
import type { FetchFunction } from '../types.js';
import { renewGrant, type OAuthContext } from './authorize.js';
import { accessTokenOf, grantServes, needsRefresh, originOf, type OAuthGrant } from './grant.js';

/** Where a grant lives (sealed at rest by the caller), and the lock its renewals take. */
export interface OAuthGrantStore {
  /**
   * Names the grant within this process: fetches over stores with the same key share their
   * renewals and reads. Absent: nothing is shared (a grant held in memory by one caller).
   */
  key?: string;
  load(): Promise<OAuthGrant | undefined>;
  save(grant: OAuthGrant): Promise<void>;
  /** Runs `work` while no other process runs work under the same lock (a Redis lock across workers). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** The grant cannot be used any more: a person must authorize again (`scope`: what the server asked for). */
  lost(reason: string, scope?: string): Promise<void>;
}

export interface OAuthFetchOptions extends OAuthContext {
  store: OAuthGrantStore;
  /** Renew this long before the access token expires; default 30 s. */
  refreshSkewMs?: number;
}

/** The bearer fetch, and the step that makes its token usable before a connect deadline starts. */
export interface OAuthCredentials {
  fetch: FetchFunction;
  /** Loads the grant and renews it now if it is about to expire (waiting for another process's renewal). */
  prepare(): Promise<void>;
  /** How long `fetch` has waited for renewals so far (ms). */
  renewalMs(): number;
}

export const DEFAULT_REFRESH_SKEW_MS = 30_000;

const renewals = new Map<string, Promise<OAuthGrant>>();
const reads = new Map<string, Promise<OAuthGrant | undefined>>();

/** `work`, or the same work another caller with this key already has running. */
function shared<T>(running: Map<string, Promise<T>>, key: string | undefined, work: () => Promise<T>): Promise<T> {
  if (key === undefined) return work();
  const current = running.get(key);
  if (current) return current;
  const started = work().finally(() => {
    if (running.get(key) === started) running.delete(key);
  });
  running.set(key, started);
  return started;
}

export function createOAuthFetch(options: OAuthFetchOptions): FetchFunction {
  return createOAuthCredentials(options).fetch;
}

export function createOAuthCredentials(options: OAuthFetchOptions): OAuthCredentials {
  const origin = originOf(options.serverUrl);
  const skew = options.refreshSkewMs ?? DEFAULT_REFRESH_SKEW_MS;
  const { store } = options;
  const base = options.fetch;

  const usable = async (): Promise<OAuthGrant> => {
    const grant = await shared(reads, store.key, () => store.load());
    if (!grantServes(grant, options.serverUrl) || accessTokenOf(grant) === undefined) throw authRequired('not authorized yet');
    return needsRefresh(grant, skew) ? renew(accessTokenOf(grant)) : grant;
  };

  let renewalMs = 0;
  /** Renewals this fetch is waiting for, by when each began. */
  const waiting = new Map<Promise<OAuthGrant>, number>();
  /** A grant whose token is not `stale`: this process's renewal in progress, another process's, or ours. */
  const renew = async (stale: string | undefined): Promise<OAuthGrant> => {
    const started = Date.now();
    const renewal = renewShared(stale);
    waiting.set(renewal, started);
    try {
      return await renewal;
    } finally {
      waiting.delete(renewal);
      renewalMs += Date.now() - started;
    }
  };

  const renewShared = async (stale: string | undefined): Promise<OAuthGrant> => {
    let mine = false;
    const joined = await shared(renewals, store.key, () => {
      mine = true;
      return renewExclusive(stale);
    });
    // The renewal joined was started for an older token and found ours current: ours needs its own.
    return !mine && accessTokenOf(joined) === stale ? renewExclusive(stale) : joined;
  };

  const renewExclusive = (stale: string | undefined): Promise<OAuthGrant> =>
    store.exclusive(async () => {
      const current = await store.load();
      if (!grantServes(current, options.serverUrl)) throw authRequired('not authorized yet');
      if (accessTokenOf(current) !== stale && !needsRefresh(current, skew)) return current;
      let renewed: OAuthGrant | undefined;
      try {
        renewed = await renewGrant(options, current);
      } catch (error) {
        await store.lost(`renewing the token failed: ${error instanceof Error ? error.message : String(error)}`);
        throw authRequired('renewing the token failed', error);
      }
      if (!renewed) {
        await store.lost('the authorization server refused to renew the token');
        throw authRequired('the authorization server refused to renew the token');
      }
      await store.save(renewed);
      return renewed;
    });

  const send = (input: Parameters<FetchFunction>[0], init: RequestInit | undefined, token: string) => {
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.set('authorization', `Bearer ${token}`);
    return base(input, { ...init, headers });
  };

  const fetch: FetchFunction = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) return base(input, init);
    const grant = await usable();
    const token = accessTokenOf(grant) as string;
    let response = await send(input, init, token);
    if (response.status === 401) {
      await response.body?.cancel();
      response = await send(input, init, accessTokenOf(await renew(token)) as string);
      if (response.status === 401) {
        await response.body?.cancel();
        await store.lost('the server refused a freshly renewed token');
        throw authRequired('the server refused a freshly renewed token');
      }
    }
    if (response.status === 403) {
      const challenge = extractWWWAuthenticateParams(response);
      if (challenge.error === 'insufficient_scope') {
        await response.body?.cancel();
        // Step-up: a larger scope needs a person's consent (or, for client credentials, a new token with it).
        await store.lost(`the server asks for the scope "${challenge.scope ?? ''}"`, challenge.scope);
        throw authRequired(`the server asks for the scope "${challenge.scope ?? ''}"`);
      }
    }
    return response;
  };

  return {
    fetch,
    prepare: async () => {
      // A renewal already under way (this fetch's, or this process's for the same grant) is waited for first.
      const running = store.key === undefined ? undefined : renewals.get(store.key);
      await Promise.allSettled([...waiting.keys(), ...(running ? [running] : [])]);
      await usable();
    },
    renewalMs: () => [...waiting.values()].reduce((total, started) => total + Date.now() - started, renewalMs),
  };
}

function authRequired(reason: string, cause?: unknown): McpError {
  return new McpError(
    McpErrorCode.AUTH_REQUIRED,
    `OAuth authorization required: ${reason} (POST /toolsets/:id/authorize)`,
    cause === undefined ? {} : { cause },
  );
}
