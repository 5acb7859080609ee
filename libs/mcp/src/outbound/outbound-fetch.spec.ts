import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findOutboundBlock, OutboundBlockedError } from './errors.js';
import { createOutboundFetch } from './outbound-fetch.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback server that records what it receives and answers by path. */
async function recordingServer(
  routes: (path: string, origin: string) => { status: number; headers?: Record<string, string>; body?: string; stream?: boolean },
) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const answer = routes(req.url ?? '/', origin);
      res.writeHead(answer.status, answer.headers);
      if (answer.stream) {
        res.write('data: first\n\n');
        setTimeout(() => res.end('data: second\n\n'), 300);
      } else res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { seen, origin, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('createOutboundFetch', () => {
  const outboundFetch = createOutboundFetch();
  let target: Awaited<ReturnType<typeof recordingServer>>;
  let redirector: Awaited<ReturnType<typeof recordingServer>>;

  beforeAll(async () => {
    target = await recordingServer((path) =>
      path === '/stream'
        ? { status: 200, headers: { 'content-type': 'text/event-stream' }, stream: true }
        : { status: 200, body: `target ${path}` },
    );
    redirector = await recordingServer((path, origin) => {
      const to = new URL(path, origin).searchParams.get('to') ?? '/';
      const status = Number(new URL(path, origin).searchParams.get('status') ?? 307);
      if (path.startsWith('/loop')) return { status: 302, headers: { location: '/loop' } };
      if (path.startsWith('/go')) return { status, headers: { location: to } };
      return { status: 200, body: `redirector ${path}` };
    });
  });
  afterAll(async () => {
    outboundFetch.close();
    await target.close();
    await redirector.close();
  });

  it('fetches like fetch: status, headers, body, POST with a JSON body', async () => {
    const res = await outboundFetch(`${target.origin}/hello`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${target.origin}/hello`);
    expect(await res.text()).toBe('target /hello');
    const seen = target.seen.at(-1);
    expect(seen).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(seen?.headers).toMatchObject({ authorization: 'Bearer t', 'content-type': 'application/json', 'content-length': '7' });
  });

  it('streams a response body as it arrives (SSE)', async () => {
    const started = Date.now();
    const res = await outboundFetch(`${target.origin}/stream`, { headers: { accept: 'text/event-stream' } });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toContain('first');
    expect(Date.now() - started).toBeLessThan(250);
    await reader.cancel();
  });

  it('refuses the metadata address and other schemes before connecting', async () => {
    await expect(outboundFetch('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(OutboundBlockedError);
    await expect(outboundFetch('file:///etc/passwd')).rejects.toThrow(/only http and https/);
  });

  it('checks the address a hostname resolves to at connect time', async () => {
    const locked = createOutboundFetch({ deny: ['127.0.0.0/8', '::1'] });
    const port = new URL(target.origin).port;
    await expect(locked(`http://localhost:${port}/`)).rejects.toThrow(/localhost resolves to .*OUTBOUND_DENY/);
    locked.close();
  });

  it('keeps credentials on a same-origin redirect', async () => {
    const res = await outboundFetch(`${redirector.origin}/go?to=/same`, { headers: { authorization: 'Bearer keep', 'x-api-key': 'k' } });
    expect(await res.text()).toBe('redirector /same');
    expect(redirector.seen.at(-1)?.headers).toMatchObject({ authorization: 'Bearer keep', 'x-api-key': 'k' });
  });

  it('drops credentials on a cross-host redirect and keeps harmless headers and the body on 307', async () => {
    const to = encodeURIComponent(`http://localhost:${new URL(target.origin).port}/landed`);
    const res = await outboundFetch(`${redirector.origin}/go?to=${to}`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer secret',
        'x-api-key': 'k',
        cookie: 'c=1',
        'mcp-session-id': 's',
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: '{"jsonrpc":"2.0"}',
    });
    expect(await res.text()).toBe('target /landed');
    const seen = target.seen.at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.body).toBe('{"jsonrpc":"2.0"}');
    expect(seen.headers.accept).toBe('application/json');
    for (const name of ['authorization', 'x-api-key', 'cookie', 'mcp-session-id']) expect(seen.headers[name]).toBeUndefined();
  });

  it('turns a POST into a GET on 303', async () => {
    await outboundFetch(`${redirector.origin}/go?status=303&to=/after`, { method: 'POST', body: 'x' });
    expect(redirector.seen.at(-1)).toMatchObject({ method: 'GET', url: '/after', body: '' });
  });

  it('checks every redirect hop', async () => {
    const to = encodeURIComponent('http://169.254.169.254/latest/meta-data/iam/');
    await expect(outboundFetch(`${redirector.origin}/go?to=${to}`)).rejects.toThrow(/169.254.169.254 is a cloud metadata/);
    await expect(outboundFetch(`${redirector.origin}/go?to=${encodeURIComponent('file:///etc/passwd')}`)).rejects.toThrow(
      /only http and https/,
    );
    await expect(outboundFetch(`${redirector.origin}/loop`)).rejects.toThrow(/more than 5 redirects/);
  });

  it('returns the redirect itself with redirect: "manual" (the MCP SDK follows same-origin hops through this fetch)', async () => {
    const res = await outboundFetch(`${redirector.origin}/go?to=/x`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('/x');
  });

  it('aborts with the signal', async () => {
    const controller = new AbortController();
    const pending = outboundFetch(`${target.origin}/stream`, { signal: controller.signal }).then((res) => res.text());
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(/abort/i);
  });

  it('finds the refusal behind wrapping errors', () => {
    const blocked = new OutboundBlockedError('x');
    const wrapped = Object.assign(new Error('connect failed', { cause: new Error('fetch failed', { cause: blocked }) }), { causes: [] });
    expect(findOutboundBlock(wrapped)).toBe(blocked);
    expect(findOutboundBlock(Object.assign(new Error('both'), { causes: [new Error('a'), blocked] }))).toBe(blocked);
    expect(findOutboundBlock(new Error('plain'))).toBeUndefined();
  });
});
