import { describe, expect, it } from '@jest/globals';
import { bearerToken, generateApiKey, hashApiKey, looksLikeApiKey, sameHash } from './api-key-token.js';
import { grants } from './scopes.js';

describe('API key tokens', () => {
  it('makes distinct 256-bit keys with a recognisable prefix, stored as SHA-256', () => {
    const one = generateApiKey();
    const two = generateApiKey();
    expect(one.key).toMatch(/^mcpf_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(one.key.slice(5), 'base64url')).toHaveLength(32);
    expect(one.key).not.toBe(two.key);
    expect(one.hash).toBe(hashApiKey(one.key));
    expect(one.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(one.key.startsWith(one.prefix)).toBe(true);
    expect(looksLikeApiKey(one.key)).toBe(true);
    expect(looksLikeApiKey(`${one.key}x`)).toBe(false);
  });

  it('compares hashes in constant time and only when they are comparable', () => {
    const { hash } = generateApiKey();
    expect(sameHash(hash, hash)).toBe(true);
    expect(sameHash(hash, hashApiKey('other'))).toBe(false);
    expect(sameHash(hash, 'abcd')).toBe(false);
  });

  it('reads the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer   abc ')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken(['Bearer a'])).toBeUndefined();
  });

  it('grants a route to admin or to one of its scopes', () => {
    expect(grants(['admin'], ['write'])).toBe(true);
    expect(grants(['read', 'run'], ['run'])).toBe(true);
    expect(grants(['read'], ['write'])).toBe(false);
    expect(grants([], ['read'])).toBe(false);
  });
});
