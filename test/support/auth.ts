import { randomBytes } from 'node:crypto';

/**
 * Tests talk to the API as a client would: with `Authorization: Bearer <key>`. `startApi` seeds
 * an admin key (ADMIN_API_KEY) and registers it here for that API's origin; from then on every
 * `fetch` to that origin that carries no `authorization` header of its own gets the key — the
 * `api()` helper, SSE readers and `?wait` calls alike. `anonymousFetch` sends nothing.
 */
const keysByOrigin = new Map<string, string>();

export const anonymousFetch: typeof fetch = globalThis.fetch.bind(globalThis);

function urlOf(input: Parameters<typeof fetch>[0]): string {
  if (typeof input === 'string') return input;
  return input instanceof URL ? input.href : input.url;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

const authenticatingFetch: typeof fetch = (input, init) => {
  const origin = originOf(urlOf(input));
  const key = origin ? keysByOrigin.get(origin) : undefined;
  if (!key) return anonymousFetch(input, init);
  const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
  return anonymousFetch(input, { ...init, headers });
};
globalThis.fetch = authenticatingFetch;

/** From now on, requests to `apiUrl` carry this key unless they say otherwise. */
export function authenticateAs(apiUrl: string, key: string): void {
  const origin = originOf(apiUrl);
  if (origin) keysByOrigin.set(origin, key);
}

/** The key registered for an API (the seeded admin key of a test stack). */
export function keyOf(apiUrl: string): string {
  const key = keysByOrigin.get(originOf(apiUrl) ?? '');
  if (!key) throw new Error(`no API key registered for ${apiUrl}`);
  return key;
}

/** A fresh key string in the product's format (for ADMIN_API_KEY). */
export function newAdminKey(): string {
  return `mcpf_${randomBytes(32).toString('base64url')}`;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
