import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The key string: `mcpf_` + base64url of 32 random bytes (256 bits). It is stored only as its
 * SHA-256: with that much entropy nothing can be guessed or looked up, so a slow password KDF
 * (bcrypt, scrypt) would add tens of milliseconds to every request and no safety.
 */
export const API_KEY_PREFIX = 'mcpf_';
const KEY_PATTERN = /^mcpf_[A-Za-z0-9_-]{43}$/;
/** Characters shown in lists (`mcpf_` + 6): enough to tell keys apart, nothing to guess with. */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 6;

export interface NewKeyMaterial {
  key: string;
  hash: string;
  prefix: string;
}

export function generateApiKey(): NewKeyMaterial {
  return materialOf(API_KEY_PREFIX + randomBytes(32).toString('base64url'));
}

/** Hash and display prefix of a key given from outside (ADMIN_API_KEY). */
export function materialOf(key: string): NewKeyMaterial {
  return { key, hash: hashApiKey(key), prefix: key.slice(0, DISPLAY_LENGTH) };
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The token of an `Authorization: Bearer <token>` header, if the header has that shape. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1];
}
