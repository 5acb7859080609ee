/**
 * One HTTP request/response over node:http(s), without following redirects, whose DNS lookup
 * goes through a check: the address that is checked is the address that is connected to, so a
 * hostname that resolves to a public address at check time and to 169.254.169.254 at connect
 * time (DNS rebinding) cannot slip through — which a check before the global fetch could not
 * promise. Connections are kept alive per instance (the SDK sends many small POSTs).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

export interface HopRequest {
  url: URL;
  method: string;
  headers: Headers;
  body?: Uint8Array;
  signal?: AbortSignal;
}

export interface HttpHop {
  send(request: HopRequest): Promise<Response>;
  /** Closes idle kept-alive sockets. */
  close(): void;
}

/** Below the 5 s keep-alive of Node servers, so we never write on a socket the server is closing. */
const IDLE_SOCKET_MS = 4_000;
const BODYLESS_STATUSES = new Set([204, 205, 304]);

export function createHttpHop(checkAddress: (hostname: string, address: string) => void): HttpHop {
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', undefined);
      try {
        addresses.forEach((entry) => checkAddress(hostname, entry.address));
      } catch (blocked) {
        return callback(blocked as NodeJS.ErrnoException, '', undefined);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
    'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  };

  return {
    send: ({ url, method, headers, body, signal }) =>
      new Promise<Response>((resolve, reject) => {
        const outgoing: Record<string, string> = { 'user-agent': 'mcpflow', ...Object.fromEntries(headers) };
        if (body) outgoing['content-length'] = String(body.byteLength);
        const client = url.protocol === 'https:' ? https : http;
        const request = client.request(
          url,
          { method, headers: outgoing, agent: agents[url.protocol as 'http:' | 'https:'], lookup, signal },
          (response) => resolve(toResponse(response, url, method)),
        );
        // Errors after the response arrived surface through its body stream.
        request.on('error', reject);
        request.end(body);
      }),
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

function toResponse(incoming: http.IncomingMessage, url: URL, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
  const status = incoming.statusCode ?? 502;
  const bodyless = method === 'HEAD' || BODYLESS_STATUSES.has(status);
  if (bodyless) incoming.resume();
  const body = bodyless ? null : (Readable.toWeb(incoming) as NodeReadableStream<Uint8Array> as unknown as ReadableStream<Uint8Array>);
  const response = new Response(body, { status, statusText: incoming.statusMessage, headers });
  // A constructed Response has no url; the SDK reads it to describe redirects it did not follow.
  Object.defineProperty(response, 'url', { value: url.href });
  return response;
}
