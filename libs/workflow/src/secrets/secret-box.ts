import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { decodeSecretsKey } from '../config/app-config.js';

/**
 * Encryption of secrets at rest (toolset header values, provider API keys): AES-256-GCM under
 * `SECRETS_KEY`. A sealed value names the key that sealed it (a short fingerprint), so after a
 * rotation values sealed under `SECRETS_KEY_PREVIOUS` still open while new ones use the new key.
 *
 * Sealed form: `enc:v1:<key fingerprint>:<iv>:<auth tag>:<ciphertext>` (base64url parts).
 */
export interface SecretBox {
  /** Encrypts with the current key; a fresh random IV each time. */
  seal(plaintext: string): string;
  /** Decrypts a sealed value with whichever configured key sealed it; throws SecretBoxError otherwise. */
  open(sealed: string): string;
  /** True when the value has the sealed form (it says nothing about which key sealed it). */
  isSealed(value: string): boolean;
  /** True when the value was sealed under an older key and should be sealed again. */
  needsReseal(sealed: string): boolean;
}

export interface SecretBoxOptions {
  env?: 'development' | 'production' | 'test';
  /** Told when no key is configured outside production and an ephemeral one is used. */
  warn?: (message: string) => void;
}

export class SecretBoxError extends Error {
  readonly code = 'SECRET_UNREADABLE';
  override readonly name = 'SecretBoxError';
}

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

/**
 * One ephemeral key per process, so the API and a worker booted in the same process (e2e tests,
 * a single-process dev setup) read each other's values. Values sealed with it die with the process.
 */
let ephemeralKey: Buffer | undefined;

function keyOf(bytes: Buffer): Key {
  return { id: createHash('sha256').update(bytes).digest('base64url').slice(0, 8), bytes };
}

function decodeOrThrow(name: string, value: string): Buffer {
  const bytes = decodeSecretsKey(value);
  if (!bytes) throw new SecretBoxError(`${name} must decode to exactly 32 bytes (64 hex characters or base64)`);
  return bytes;
}

/** The box for `config.secrets` (`{key, previousKey}` as loaded by loadConfig). */
export function createSecretBox(secrets: { key?: string; previousKey?: string }, options: SecretBoxOptions = {}): SecretBox {
  let current: Key;
  if (secrets.key) {
    current = keyOf(decodeOrThrow('SECRETS_KEY', secrets.key));
  } else if (options.env === 'production') {
    throw new SecretBoxError('SECRETS_KEY is required in production');
  } else {
    ephemeralKey ??= randomBytes(32);
    current = keyOf(ephemeralKey);
    options.warn?.(
      'SECRETS_KEY is not set: secrets are encrypted with an ephemeral key and become unreadable when this process ' +
        'exits (set SECRETS_KEY; scripts/dev.sh up generates one into .data/secrets.key)',
    );
  }
  const keys = new Map<string, Key>([[current.id, current]]);
  if (secrets.previousKey) {
    const previous = keyOf(decodeOrThrow('SECRETS_KEY_PREVIOUS', secrets.previousKey));
    if (!keys.has(previous.id)) keys.set(previous.id, previous);
  }

  const parse = (sealed: string) => {
    const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(':') : [];
    if (parts.length !== 4) throw new SecretBoxError('not a sealed secret');
    const [keyId, iv, tag, data] = parts;
    return { keyId, iv: Buffer.from(iv, 'base64url'), tag: Buffer.from(tag, 'base64url'), data: Buffer.from(data, 'base64url') };
  };

  return {
    seal(plaintext) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current.bytes, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${PREFIX}${current.id}:${iv.toString('base64url')}:${tag.toString('base64url')}:${data.toString('base64url')}`;
    },
    open(sealed) {
      const { keyId, iv, tag, data } = parse(sealed);
      const key = keys.get(keyId);
      if (!key) throw new SecretBoxError(`sealed under an unknown key (${keyId}): neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS`);
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('malformed sealed secret');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.bytes, iv);
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('sealed secret failed authentication (tampered or wrong key)');
      }
    },
    isSealed: (value) => value.startsWith(PREFIX),
    needsReseal: (sealed) => parse(sealed).keyId !== current.id,
  };
}
