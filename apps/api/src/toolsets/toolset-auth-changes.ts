/**
 * What a PATCH does to an OAuth toolset's `auth`: the object given replaces the stored one, a
 * `clientSecret` or `privateKey` of "***" keeps the stored one (what GET shows is sendable back),
 * and a URL on another origin takes neither along (they were entered for the old origin's
 * authorization server; the rule header values follow too).
 */
import { readSigningKey, SigningKeyError, storedSecretsMayFollow } from '#mcp';
import type { ToolsetAuthSettings } from '#workflow/nest';
import { InvalidRequestError } from '../common/api-errors.js';
import { MASK, type ToolsetAuthBody } from './dto/toolset-requests.js';
import { authSettingsOf } from './toolset-oauth-listing.js';

/** The stored secrets of OAuth settings, by the field that holds them. */
const SECRET_FIELDS = ['clientSecret', 'privateKey'] as const;
type SecretField = (typeof SECRET_FIELDS)[number];

function refused(field: SecretField | 'signingAlgorithm', message: string, code = 'SECRET_REQUIRED'): InvalidRequestError {
  return new InvalidRequestError([{ path: `/auth/${field}`, code, message }], 'The request body is invalid');
}

/** The settings of a toolset being created: nothing is stored yet, so a private key of "***" has nothing to keep. */
export function authOfNewToolset(given: ToolsetAuthBody): ToolsetAuthSettings {
  if (given.privateKey === MASK) throw refused('privateKey', `"${MASK}" keeps a stored value, but a new toolset has none`);
  return authSettingsOf(given);
}

/**
 * The settings after the PATCH: the stored ones when `given` is absent, none when it is null. A
 * kept private key signs with the algorithm given, else the stored one.
 */
export function resolveAuth(
  given: ToolsetAuthBody | null | undefined,
  stored: ToolsetAuthSettings | undefined,
): ToolsetAuthSettings | undefined {
  if (given === undefined) return stored;
  if (given === null) return undefined;
  const settings = authSettingsOf(given);
  if (given.clientSecret === MASK) {
    if (stored?.clientSecret === undefined)
      throw refused('clientSecret', `"${MASK}" keeps a stored value, but the toolset has no client secret`);
    settings.clientSecret = stored.clientSecret;
  }
  if (given.privateKey === MASK) {
    if (stored?.privateKey === undefined) throw refused('privateKey', `"${MASK}" keeps a stored value, but the toolset has no private key`);
    try {
      const key = readSigningKey(stored.privateKey, given.signingAlgorithm ?? stored.signingAlgorithm);
      Object.assign(settings, { privateKey: key.jwk, signingAlgorithm: key.algorithm });
    } catch (error) {
      if (error instanceof SigningKeyError) throw refused(error.field, error.message, 'CUSTOM');
      throw error;
    }
  }
  return settings;
}

/** Refuses a move to another origin that would keep a stored client secret or private key (left out, or given as "***"). */
export function refuseClientSecretOnNewOrigin(
  storedUrl: string,
  nextUrl: string,
  given: ToolsetAuthBody | null | undefined,
  stored: ToolsetAuthSettings | undefined,
): void {
  if (storedSecretsMayFollow(storedUrl, nextUrl) || given === null) return;
  for (const field of SECRET_FIELDS) {
    if (stored?.[field] === undefined) continue;
    if (given !== undefined && given[field] !== MASK) continue;
    throw refused(
      field,
      `The URL moves to another origin: give the ${field === 'clientSecret' ? 'client secret' : 'private key'} again in "auth" (stored secrets stay with the origin they were entered for)`,
    );
  }
}

export function sameAuth(a: ToolsetAuthSettings | undefined, b: ToolsetAuthSettings | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return (
    a.flow === b.flow &&
    a.clientId === b.clientId &&
    a.clientSecret === b.clientSecret &&
    a.tokenEndpointAuthMethod === b.tokenEndpointAuthMethod &&
    a.privateKey === b.privateKey &&
    a.signingAlgorithm === b.signingAlgorithm &&
    (a.perUser ?? false) === (b.perUser ?? false) &&
    JSON.stringify(a.scopes ?? null) === JSON.stringify(b.scopes ?? null)
  );
}
