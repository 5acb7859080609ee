/**
 * The private key a client authenticates with at a token endpoint (`private_key_jwt`, RFC 7523
 * §2.2): read once from what a person gave (a PEM in PKCS#8, PKCS#1 or SEC1, or a JWK), checked
 * against the signing algorithm, and kept as a private JWK, the form the SDK's
 * `createPrivateKeyJwtAuth` imports for every algorithm it signs with. node:crypto parses; the
 * SDK (through `jose`) signs.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';

export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/** The algorithms each kind of key signs with, the first the one used when none is named. */
const ALGORITHMS_BY_KEY: Record<string, SigningAlgorithm[]> = {
  rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'ec prime256v1': ['ES256'],
  'ec secp384r1': ['ES384'],
  'ec secp521r1': ['ES512'],
  ed25519: ['EdDSA'],
};

const MIN_RSA_BITS = 2048;

export interface SigningKey {
  /** The private key as a JWK (JSON): a secret, sealed at rest like client secrets. */
  jwk: string;
  algorithm: SigningAlgorithm;
}

/** A key that cannot be used, and why (for a 400 naming the field). */
export class SigningKeyError extends Error {
  constructor(
    message: string,
    readonly field: 'privateKey' | 'signingAlgorithm',
  ) {
    super(message);
  }
}

/** The key as a private JWK with the algorithm it signs with (`algorithm`, else the JWK's `alg`, else its kind's default). */
export function readSigningKey(given: string | Record<string, unknown>, algorithm?: string): SigningKey {
  const source = asJwkOrPem(given);
  const key = parse(source);
  const kind = key.asymmetricKeyType === 'ec' ? `ec ${key.asymmetricKeyDetails?.namedCurve}` : String(key.asymmetricKeyType);
  const usable = ALGORITHMS_BY_KEY[kind];
  if (!usable)
    throw new SigningKeyError(
      `a ${kind} key cannot sign client assertions: give an RSA, EC (P-256, P-384, P-521) or Ed25519 key`,
      'privateKey',
    );
  if (kind === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS)
    throw new SigningKeyError(`an RSA key of fewer than ${MIN_RSA_BITS} bits is refused`, 'privateKey');
  const wanted = algorithm ?? (typeof source === 'object' && typeof source.alg === 'string' ? source.alg : usable[0]);
  if (!usable.includes(wanted as SigningAlgorithm))
    throw new SigningKeyError(`${wanted} does not sign with this key; it signs with ${usable.join(', ')}`, 'signingAlgorithm');
  return { jwk: JSON.stringify(key.export({ format: 'jwk' })), algorithm: wanted as SigningAlgorithm };
}

/** A JWK may come as JSON text too. */
function asJwkOrPem(given: string | Record<string, unknown>): string | Record<string, unknown> {
  if (typeof given !== 'string' || !given.trimStart().startsWith('{')) return given;
  try {
    return JSON.parse(given) as Record<string, unknown>;
  } catch {
    throw new SigningKeyError('not a usable private key: the text starts like a JWK but is not JSON', 'privateKey');
  }
}

function parse(source: string | Record<string, unknown>): KeyObject {
  try {
    return typeof source === 'string' ? createPrivateKey({ key: source, format: 'pem' }) : createPrivateKey({ key: source, format: 'jwk' });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SigningKeyError(
      `not a usable private key (a PEM "BEGIN PRIVATE KEY", "BEGIN RSA PRIVATE KEY" or "BEGIN EC PRIVATE KEY" without a passphrase, or a private JWK): ${reason}`,
      'privateKey',
    );
  }
}
