import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { startStack, type TestStack } from '../support/stack.js';

const SECRET = 'Bearer origin-bound-secret-7f3a';

/** A listener on another port that records the headers of every request it gets (and answers 404). */
async function startSpy(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/mcp`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('stored secrets stay with the origin they were entered for', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let spy: Awaited<ReturnType<typeof startSpy>>;
  let toolsetId: string;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
    fixture = await startFixtureServer({ tools: basicTools(), auth: { header: 'authorization', value: SECRET } });
    spy = await startSpy();
    const created = await api<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', { url: fixture.url, headers: { Authorization: SECRET } });
    expect(created.status).toBe(201);
    toolsetId = created.body.id;
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await fixture?.close();
    await spy?.close();
  });

  it('refuses a new origin that would keep the stored header (left out or "***"), sending nothing there', async () => {
    for (const body of [{ url: spy.url }, { url: spy.url, headers: { Authorization: '***' } }]) {
      const res = await api(stack.apiUrl, 'PATCH', `/toolsets/${toolsetId}`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ path: '/headers/Authorization', code: 'SECRET_REQUIRED' }] });
    }
    expect(spy.seen).toEqual([]);
    const stored = await api<{ url: string }>(stack.apiUrl, 'GET', `/toolsets/${toolsetId}`);
    expect(stored.body.url).toBe(fixture.url);
  });

  it('takes new values to a new origin and keeps stored ones on the same origin', async () => {
    const moved = await api(stack.apiUrl, 'PATCH', `/toolsets/${toolsetId}`, {
      url: spy.url,
      headers: { Authorization: 'Bearer typed-again' },
    });
    expect(moved.status).toBe(422);
    expect(spy.seen.map((headers) => headers.authorization)).not.toContain(SECRET);
    expect(spy.seen.length).toBeGreaterThan(0);
    const samePlace = new URL(fixture.url);
    samePlace.search = '?again=1';
    const kept = await api(stack.apiUrl, 'PATCH', `/toolsets/${toolsetId}`, {
      url: samePlace.toString(),
      headers: { Authorization: '***' },
    });
    expect(kept.status).toBe(200);
  });

  it('refuses a provider base URL on another origin without its key again', async () => {
    const created = await api<{ id: string }>(stack.apiUrl, 'POST', '/providers', {
      name: 'p',
      baseURL: 'https://llm.example.com/v1',
      apiKey: 'sk-stored',
    });
    expect(created.status).toBe(201);
    for (const body of [{ baseURL: 'https://evil.example.net/v1' }, { baseURL: 'https://llm.example.com:8443/v1', apiKey: '***' }]) {
      const res = await api(stack.apiUrl, 'PATCH', `/providers/${created.body.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ path: '/apiKey', code: 'SECRET_REQUIRED' }] });
    }
    expect((await api(stack.apiUrl, 'PATCH', `/providers/${created.body.id}`, { baseURL: 'https://llm.example.com/v2' })).status).toBe(200);
    expect(
      (await api(stack.apiUrl, 'PATCH', `/providers/${created.body.id}`, { baseURL: 'https://new.example.com/v1', apiKey: 'sk-new' }))
        .status,
    ).toBe(200);
  });
});
