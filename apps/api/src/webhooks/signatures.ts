import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HookRefusal, HookVerification } from '#workflow/nest';

/** What a delivery carries that a check reads: its raw bytes and its headers (lower-case names). */
export interface Delivery {
  raw: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

export type Verdict =
  { ok: true } | { ok: false; refusal: Extract<HookRefusal, 'signature_missing' | 'signature_invalid' | 'timestamp_expired'> };

export interface CheckOptions {
  /** Seconds a signed timestamp may be away from now (Stripe, Slack). */
  toleranceSeconds: number;
  now?: Date;
}

/** The header a `token` hook expects the secret in. */
export const TOKEN_HEADER = 'x-webhook-token';

function header(delivery: Delivery, name: string): string | undefined {
  const value = delivery.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const hmacHex = (secret: string, ...parts: (string | Buffer)[]) => {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest('hex');
};

/** Constant-time equality of two texts (their SHA-256 digests compared, so lengths leak nothing either). */
export function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function withinTolerance(timestamp: string, options: CheckOptions): boolean {
  const seconds = Number(timestamp);
  const now = (options.now ?? new Date()).getTime() / 1000;
  return /^\d{1,12}$/.test(timestamp) && Math.abs(now - seconds) <= options.toleranceSeconds;
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`. GitHub signs no timestamp: replay is met by the delivery id. */
function github(secret: string, delivery: Delivery): Verdict {
  const signature = header(delivery, 'x-hub-signature-256');
  if (!signature) return { ok: false, refusal: 'signature_missing' };
  return sameSecret(signature, `sha256=${hmacHex(secret, delivery.raw)}`) ? { ok: true } : { ok: false, refusal: 'signature_invalid' };
}

/** Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">[,v1=…]`, the timestamp within the tolerance. */
function stripe(secret: string, delivery: Delivery, options: CheckOptions): Verdict {
  const value = header(delivery, 'stripe-signature');
  if (!value) return { ok: false, refusal: 'signature_missing' };
  const pairs = value.split(',').map((pair) => pair.trim().split('=', 2) as [string, string | undefined]);
  const timestamp = pairs.find(([key]) => key === 't')?.[1];
  const signatures = pairs.filter(([key, sig]) => key === 'v1' && sig).map(([, sig]) => sig as string);
  if (!timestamp || signatures.length === 0) return { ok: false, refusal: 'signature_missing' };
  const expected = hmacHex(secret, `${timestamp}.`, delivery.raw);
  // Every v1 is compared (no early exit), so the time taken does not tell which one matched.
  const matched = signatures.map((sig) => sameSecret(sig, expected)).includes(true);
  if (!matched) return { ok: false, refusal: 'signature_invalid' };
  return withinTolerance(timestamp, options) ? { ok: true } : { ok: false, refusal: 'timestamp_expired' };
}

/** Slack: `X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:body">` with `X-Slack-Request-Timestamp`. */
function slack(secret: string, delivery: Delivery, options: CheckOptions): Verdict {
  const signature = header(delivery, 'x-slack-signature');
  const timestamp = header(delivery, 'x-slack-request-timestamp');
  if (!signature || !timestamp) return { ok: false, refusal: 'signature_missing' };
  if (!sameSecret(signature, `v0=${hmacHex(secret, `v0:${timestamp}:`, delivery.raw)}`)) return { ok: false, refusal: 'signature_invalid' };
  return withinTolerance(timestamp, options) ? { ok: true } : { ok: false, refusal: 'timestamp_expired' };
}

/** Token: the secret itself in `X-Webhook-Token` (for senders that cannot sign; use HTTPS). */
function token(secret: string, delivery: Delivery): Verdict {
  const given = header(delivery, TOKEN_HEADER);
  if (!given) return { ok: false, refusal: 'signature_missing' };
  return sameSecret(given, secret) ? { ok: true } : { ok: false, refusal: 'signature_invalid' };
}

/** Checks a delivery the way its sender signs (the timestamp only once the signature holds, so an old one is told apart). */
export function checkDelivery(verify: HookVerification, secret: string, delivery: Delivery, options: CheckOptions): Verdict {
  switch (verify) {
    case 'github':
      return github(secret, delivery);
    case 'stripe':
      return stripe(secret, delivery, options);
    case 'slack':
      return slack(secret, delivery, options);
    case 'token':
      return token(secret, delivery);
  }
}

/**
 * The id that makes a redelivery the same delivery (one run): what the sender names it by —
 * GitHub's `X-GitHub-Delivery`, Stripe's event id, Slack's `event_id` (else the signature, unique
 * per timestamp and body), `X-Delivery-Id` for token hooks. Undefined: every delivery is new.
 */
export function deliveryIdOf(verify: HookVerification, delivery: Delivery, body: unknown): string | undefined {
  const field = (name: string) => {
    const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value ? value : undefined;
  };
  const id = {
    github: () => header(delivery, 'x-github-delivery'),
    stripe: () => field('id'),
    slack: () => field('event_id') ?? header(delivery, 'x-slack-signature'),
    token: () => header(delivery, 'x-delivery-id'),
  }[verify]();
  return id?.slice(0, 200);
}
