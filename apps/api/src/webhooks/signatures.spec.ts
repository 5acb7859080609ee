import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { checkDelivery, deliveryIdOf } from './signatures.js';

const options = { toleranceSeconds: 300, now: new Date('2026-11-26T10:00:00Z') };
const nowSeconds = options.now.getTime() / 1000;
const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('hex');

describe('checkDelivery', () => {
  it("accepts GitHub's documented example and refuses a changed byte or a missing header", () => {
    // https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
    const secret = "It's a Secret to Everybody";
    const signed = { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' };
    expect(checkDelivery('github', secret, { raw: Buffer.from('Hello, World!'), headers: signed }, options)).toEqual({ ok: true });
    expect(checkDelivery('github', secret, { raw: Buffer.from('Hello, World?'), headers: signed }, options)).toEqual({
      ok: false,
      refusal: 'signature_invalid',
    });
    expect(checkDelivery('github', secret, { raw: Buffer.from('Hello, World!'), headers: {} }, options)).toEqual({
      ok: false,
      refusal: 'signature_missing',
    });
  });

  it('checks Stripe signatures over "t.body", any v1 matching, and the timestamp tolerance', () => {
    const secret = 'whsec_test';
    const raw = '{"id":"evt_1","type":"charge.succeeded"}';
    const t = String(nowSeconds - 10);
    const header = `t=${t},v1=${'0'.repeat(64)},v1=${hmac(secret, `${t}.${raw}`)}`;
    expect(checkDelivery('stripe', secret, { raw: Buffer.from(raw), headers: { 'stripe-signature': header } }, options)).toEqual({
      ok: true,
    });
    const old = String(nowSeconds - 301);
    const oldHeader = `t=${old},v1=${hmac(secret, `${old}.${raw}`)}`;
    expect(checkDelivery('stripe', secret, { raw: Buffer.from(raw), headers: { 'stripe-signature': oldHeader } }, options)).toEqual({
      ok: false,
      refusal: 'timestamp_expired',
    });
    expect(checkDelivery('stripe', 'other', { raw: Buffer.from(raw), headers: { 'stripe-signature': header } }, options)).toEqual({
      ok: false,
      refusal: 'signature_invalid',
    });
    expect(deliveryIdOf('stripe', { raw: Buffer.from(raw), headers: {} }, JSON.parse(raw))).toBe('evt_1');
  });

  it('checks Slack signatures over "v0:timestamp:body" with the timestamp header', () => {
    const secret = '8f742231b10e8888abcd99yyyzzz85a5';
    const raw = 'token=xyz&team_id=T1&command=%2Fweather';
    const ts = String(nowSeconds);
    const headers = { 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${hmac(secret, `v0:${ts}:${raw}`)}` };
    expect(checkDelivery('slack', secret, { raw: Buffer.from(raw), headers }, options)).toEqual({ ok: true });
    const stale = String(nowSeconds - 3600);
    const staleHeaders = { 'x-slack-request-timestamp': stale, 'x-slack-signature': `v0=${hmac(secret, `v0:${stale}:${raw}`)}` };
    expect(checkDelivery('slack', secret, { raw: Buffer.from(raw), headers: staleHeaders }, options)).toEqual({
      ok: false,
      refusal: 'timestamp_expired',
    });
    // A re-signed timestamp with the old signature does not pass.
    expect(
      checkDelivery(
        'slack',
        secret,
        { raw: Buffer.from(raw), headers: { ...headers, 'x-slack-request-timestamp': String(nowSeconds - 1) } },
        options,
      ),
    ).toEqual({
      ok: false,
      refusal: 'signature_invalid',
    });
  });

  it('compares a token hook’s header with its secret', () => {
    const raw = Buffer.from('{}');
    expect(checkDelivery('token', 's3cret-token', { raw, headers: { 'x-webhook-token': 's3cret-token' } }, options)).toEqual({ ok: true });
    expect(checkDelivery('token', 's3cret-token', { raw, headers: { 'x-webhook-token': 's3cret-tokem' } }, options)).toEqual({
      ok: false,
      refusal: 'signature_invalid',
    });
  });
});
