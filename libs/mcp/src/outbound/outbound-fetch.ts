/**
 * The SSRF-safe `fetch` for every URL a user gives the service (MCP targets, later model
 * endpoints). Same contract as the global fetch for what the MCP SDK uses; in addition every
 * hop — the first request and each redirect — passes the outbound policy (scheme, hostname,
 * the resolved address actually connected to), and a redirect that leaves the origin carries
 * no credentials: only a short list of harmless headers survives it.
 */
import type { FetchFunction } from '../types.js';
import { CROSS_ORIGIN_SAFE_HEADERS } from './credential-origin.js';
import { OutboundBlockedError } from './errors.js';
import { createHttpHop } from './http-hop.js';
import { createOutboundPolicy, type OutboundPolicyOptions } from './policy.js';
import { withRequestSpan } from './request-spans.js';

export interface OutboundFetch extends FetchFunction {
  /** Closes the kept-alive sockets (call on shutdown). */
  close(): void;
}

export interface OutboundFetchOptions {
  maxRedirects?: number;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_REDIRECTS = 5;

export function createOutboundFetch(policyOptions: OutboundPolicyOptions = {}, options: OutboundFetchOptions = {}): OutboundFetch {
  const policy = createOutboundPolicy(policyOptions);
  const hop = createHttpHop((hostname, address) => policy.assertAddress(hostname, address));
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;

  const outboundFetch = async (input: Parameters<FetchFunction>[0], init?: Parameters<FetchFunction>[1]): Promise<Response> => {
    // The Request constructor normalises every input form (URL, string, Request; any BodyInit) as fetch would.
    const request = new Request(input, init);
    let url = new URL(request.url);
    let method = request.method;
    let headers = new Headers(request.headers);
    let body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const signal = init?.signal ?? undefined;
    for (let redirects = 0; ; redirects++) {
      signal?.throwIfAborted();
      policy.assertUrl(url);
      const hopUrl = url;
      const response = await withRequestSpan(hopUrl, method, headers, body, () => hop.send({ url: hopUrl, method, headers, body, signal }));
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || request.redirect === 'manual') return response;
      await response.body?.cancel();
      if (request.redirect === 'error') throw new TypeError(`fetch failed: redirect to ${location} with redirect: "error"`);
      if (redirects >= maxRedirects) throw new OutboundBlockedError(`more than ${maxRedirects} redirects`);
      const next = new URL(location, url);
      if (next.origin !== url.origin) headers = withoutCredentials(headers);
      // As fetch does: 303, and 301/302 after a POST, turn into a GET without a body.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      url = next;
    }
  };
  return Object.assign(outboundFetch, { close: () => hop.close() });
}

function withoutCredentials(headers: Headers): Headers {
  const kept = new Headers();
  headers.forEach((value, name) => {
    if (CROSS_ORIGIN_SAFE_HEADERS.has(name.toLowerCase())) kept.set(name, value);
  });
  return kept;
}
