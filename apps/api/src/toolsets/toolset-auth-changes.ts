/**
 * What a PATCH does to an OAuth toolset's `auth`: the object given replaces the stored one, a
 * `clientSecret` of "***" keeps the stored secret (what GET shows is sendable back), and a URL on
 * another origin takes no stored client secret along (it was entered for the old origin's
 * authorization server; the rule header values follow too).
 */
import { storedSecretsMayFollow } from '#mcp';
import type { ToolsetAuthSettings } from '#workflow/nest';
import { InvalidRequestError } from '../common/api-errors.js';
import { MASK, type ToolsetAuthBody } from './dto/toolset-requests.js';
import { authSettingsOf } from './toolset-oauth-listing.js';

const CLIENT_SECRET_PATH = '/auth/clientSecret';

function refused(message: string): InvalidRequestError {
  return new InvalidRequestError([{ path: CLIENT_SECRET_PATH, code: 'SECRET_REQUIRED', message }], 'The request body is invalid');
}

/** The settings after the PATCH: the stored ones when `given` is absent. */
export function resolveAuth(given: ToolsetAuthBody | undefined, stored: ToolsetAuthSettings | undefined): ToolsetAuthSettings | undefined {
  if (given === undefined) return stored;
  const settings = authSettingsOf(given);
  if (given.clientSecret !== MASK) return settings;
  if (stored?.clientSecret === undefined) throw refused(`"${MASK}" keeps a stored value, but the toolset has no client secret`);
  return { ...settings, clientSecret: stored.clientSecret };
}

/** Refuses a move to another origin that would keep the stored client secret (left out, or given as "***"). */
export function refuseClientSecretOnNewOrigin(
  storedUrl: string,
  nextUrl: string,
  given: ToolsetAuthBody | undefined,
  stored: ToolsetAuthSettings | undefined,
): void {
  if (storedSecretsMayFollow(storedUrl, nextUrl) || stored?.clientSecret === undefined) return;
  if (given !== undefined && given.clientSecret !== MASK) return;
  throw refused(
    'The URL moves to another origin: give the client secret again in "auth" (stored secrets stay with the origin they were entered for)',
  );
}

export function sameAuth(a: ToolsetAuthSettings | undefined, b: ToolsetAuthSettings | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.flow === b.flow &&
    a.clientId === b.clientId &&
    a.clientSecret === b.clientSecret &&
    (a.perUser ?? false) === (b.perUser ?? false) &&
    JSON.stringify(a.scopes ?? null) === JSON.stringify(b.scopes ?? null)
  );
}
