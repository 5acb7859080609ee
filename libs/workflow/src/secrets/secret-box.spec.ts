import { randomBytes } from 'node:crypto';
import { describe, expect, it, jest } from '@jest/globals';
import { createSecretBox, SecretBoxError } from './secret-box.js';

const newKey = () => randomBytes(32).toString('hex');

describe('createSecretBox', () => {
  it('seals and opens; the sealed form holds no plaintext and differs each time', () => {
    const box = createSecretBox({ key: newKey() });
    const a = box.seal('Bearer s3cret-token');
    const b = box.seal('Bearer s3cret-token');
    expect(a).not.toContain('s3cret');
    expect(a).not.toBe(b);
    expect(box.isSealed(a)).toBe(true);
    expect(box.isSealed('Bearer s3cret-token')).toBe(false);
    expect(box.open(a)).toBe('Bearer s3cret-token');
    expect(box.open(box.seal(''))).toBe('');
  });

  it('opens values sealed under SECRETS_KEY_PREVIOUS after a rotation and flags them for resealing', () => {
    const oldKey = newKey();
    const sealedBefore = createSecretBox({ key: oldKey }).seal('value');
    const rotated = createSecretBox({ key: newKey(), previousKey: oldKey });
    expect(rotated.open(sealedBefore)).toBe('value');
    expect(rotated.needsReseal(sealedBefore)).toBe(true);
    expect(rotated.needsReseal(rotated.seal('value'))).toBe(false);
  });

  it('refuses a value sealed under a key it does not hold', () => {
    const sealed = createSecretBox({ key: newKey() }).seal('value');
    expect(() => createSecretBox({ key: newKey() }).open(sealed)).toThrow(/unknown key/);
  });

  it('detects tampering', () => {
    const box = createSecretBox({ key: newKey() });
    const parts = box.seal('value').split(':');
    const data = Buffer.from(parts[5], 'base64url');
    data[0] ^= 1;
    parts[5] = data.toString('base64url');
    expect(() => box.open(parts.join(':'))).toThrow(SecretBoxError);
    expect(() => box.open('enc:v1:garbage')).toThrow(SecretBoxError);
  });

  it('accepts a base64 key', () => {
    const box = createSecretBox({ key: randomBytes(32).toString('base64') });
    expect(box.open(box.seal('x'))).toBe('x');
  });

  it('uses one ephemeral key per process outside production, with a warning', () => {
    const warn = jest.fn();
    const first = createSecretBox({}, { env: 'development', warn });
    const second = createSecretBox({}, { env: 'test' });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('SECRETS_KEY is not set'));
    expect(second.open(first.seal('shared'))).toBe('shared');
  });

  it('refuses to start without a key in production, and refuses a short key', () => {
    expect(() => createSecretBox({}, { env: 'production' })).toThrow(/required in production/);
    expect(() => createSecretBox({ key: 'abcd' })).toThrow(/32 bytes/);
  });
});
