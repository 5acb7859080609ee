import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { dropTestData } from '../support/stack.js';
import { rawDatabaseDump, startLoggedApi, type LoggedApi } from '../support/toolsets.js';

interface Toolset {
  id: string;
  headers: Record<string, string>;
}
interface StoredHeader {
  name: string;
  value: string;
}

const secret = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
const newKey = () => randomBytes(32).toString('hex');

/** Every way a secret could be written: as given, base64 (e.g. inside a Basic credential), hex. */
function forms(value: string): string[] {
  return [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')];
}

describe('toolsets: header values are secrets', () => {
  const token = secret('tok');
  const apiKey = secret('key');
  const wrongKey = secret('wrong');
  const newApiKey = secret('key2');
  const keyOne = newKey();
  const keyTwo = newKey();
  let first: LoggedApi;
  let fixture: FixtureServer;
  let toolsetId: string;

  beforeAll(async () => {
    fixture = await startFixtureServer({ tools: basicTools(), auth: { header: 'x-api-key', value: apiKey } });
    first = await startLoggedApi({ SECRETS_KEY: keyOne }, { keepData: true });
  });
  afterAll(async () => {
    await first?.close();
    await fixture?.close();
    if (first) await dropTestData(first.config);
  });

  it('uses secrets on every path (create, failed create, preview, get, list, patch, refresh, call) and never answers one', async () => {
    const headers = { Authorization: `Bearer ${token}`, 'x-api-key': apiKey };
    const answers: unknown[] = [];
    const failed = await api(first.url, 'POST', '/toolsets', { url: fixture.url, headers: { ...headers, 'x-api-key': wrongKey } });
    expect(failed.status).toBe(422);
    answers.push(failed.body);
    const preview = await api(first.url, 'POST', '/toolsets/preview', { url: fixture.url, headers });
    expect(preview.status).toBe(200);
    answers.push(preview.body);
    const created = await api<Toolset>(first.url, 'POST', '/toolsets', { name: 'secret holder', url: fixture.url, headers });
    expect(created.status).toBe(201);
    expect(created.body.headers).toEqual({ Authorization: '***', 'x-api-key': '***' });
    toolsetId = created.body.id;
    answers.push(created.body);
    answers.push((await api(first.url, 'GET', `/toolsets/${toolsetId}`)).body);
    answers.push((await api(first.url, 'GET', '/toolsets')).body);
    answers.push((await api(first.url, 'POST', `/toolsets/${toolsetId}/refresh`)).body);
    const call = await api<{ text: string }>(first.url, 'POST', `/toolsets/${toolsetId}/tools/echo/call`, { arguments: { message: 'hi' } });
    expect(call.body.text).toBe('hi');
    answers.push(call.body);
    const badPatch = await api(first.url, 'PATCH', `/toolsets/${toolsetId}`, { headers: { Authorization: '***', 'x-api-key': wrongKey } });
    expect(badPatch.status).toBe(422);
    answers.push(badPatch.body);
    const text = JSON.stringify(answers);
    for (const value of [token, apiKey, wrongKey].flatMap(forms)) expect(text).not.toContain(value);
  });

  it('stores no plaintext secret: every raw collection scanned, header values sealed (AES-256-GCM form)', async () => {
    const dump = await rawDatabaseDump(first.config);
    expect(dump.toolsets).toHaveLength(1);
    const raw = JSON.stringify(dump);
    for (const value of [token, apiKey, wrongKey].flatMap(forms)) expect(raw).not.toContain(value);
    const stored = (dump.toolsets[0] as { headers: StoredHeader[] }).headers;
    expect(stored.map((header) => header.name)).toEqual(['Authorization', 'x-api-key']);
    for (const header of stored) expect(header.value).toMatch(/^enc:v1:[\w-]{8}:[\w-]+:[\w-]+:[\w-]+$/);
  });

  it('writes no secret to the logs (captured at debug level)', () => {
    expect(first.logs.length).toBeGreaterThan(5);
    const logs = first.logs.join('\n');
    expect(logs).toContain('toolset created');
    for (const value of [token, apiKey, wrongKey].flatMap(forms)) expect(logs).not.toContain(value);
  });

  it('rotates keys: SECRETS_KEY_PREVIOUS still opens old values, a write re-seals them under the new key', async () => {
    await first.close();
    const rotated = await startLoggedApi(
      { MONGO_URL: first.config.mongoUrl, SECRETS_KEY: keyTwo, SECRETS_KEY_PREVIOUS: keyOne },
      { keepData: true },
    );
    try {
      const sealedBefore = ((await rawDatabaseDump(first.config)).toolsets[0] as { headers: StoredHeader[] }).headers;
      const call = await api<{ text: string }>(rotated.url, 'POST', `/toolsets/${toolsetId}/tools/echo/call`, {
        arguments: { message: 'rotated' },
      });
      expect(call.status).toBe(200);
      expect(call.body.text).toBe('rotated');

      const refreshed = await api(rotated.url, 'POST', `/toolsets/${toolsetId}/refresh`);
      expect(refreshed.status).toBe(200);
      const sealedAfter = ((await rawDatabaseDump(first.config)).toolsets[0] as { headers: StoredHeader[] }).headers;
      const keyIdOf = (header: StoredHeader) => header.value.split(':')[2];
      expect(new Set(sealedAfter.map(keyIdOf)).size).toBe(1);
      expect(keyIdOf(sealedAfter[0])).not.toBe(keyIdOf(sealedBefore[0]));
    } finally {
      await rotated.close();
    }
    // Without the previous key, the re-sealed values still open.
    const newOnly = await startLoggedApi({ MONGO_URL: first.config.mongoUrl, SECRETS_KEY: keyTwo }, { keepData: true });
    try {
      const call = await api<{ text: string }>(newOnly.url, 'POST', `/toolsets/${toolsetId}/tools/echo/call`, {
        arguments: { message: 'new key only' },
      });
      expect(call.body.text).toBe('new key only');
      const patched = await api<Toolset>(newOnly.url, 'PATCH', `/toolsets/${toolsetId}`, {
        headers: { Authorization: '***', 'x-api-key': newApiKey },
      });
      expect(patched.status).toBe(422); // the server only knows the old key: refused, nothing stored
      const raw = JSON.stringify(await rawDatabaseDump(first.config));
      expect(raw).not.toContain(newApiKey);
      const logs = newOnly.logs.join('\n');
      for (const value of [token, apiKey, newApiKey].flatMap(forms)) expect(logs).not.toContain(value);
    } finally {
      await newOnly.close();
    }
  });
});
