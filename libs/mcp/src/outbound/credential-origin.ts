/**
 * A stored credential belongs to the origin (scheme + host + port) it was entered for. When a
 * target's URL moves to another origin, stored secret values (headers, OAuth material, provider
 * keys) must be given again: they are never sent to an origin their owner did not type them for.
 */

/** What may follow a request to another origin (a redirect): nothing that could authenticate it. Lower-case names. */
export const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-language',
  'cache-control',
  'content-type',
  'last-event-id',
  'mcp-protocol-version',
  'user-agent',
]);

/** The origin of a URL as the URL standard writes it (default ports dropped, host lowercased); undefined when it does not parse. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Whether secrets stored for `storedUrl` may be kept when the target becomes `nextUrl`: only on the same origin. */
export function storedSecretsMayFollow(storedUrl: string, nextUrl: string): boolean {
  const stored = originOf(storedUrl);
  return stored !== undefined && stored !== 'null' && stored === originOf(nextUrl);
}
