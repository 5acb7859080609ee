import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';

/**
 * Express ⇄ web-standard `Request`/`Response` for the SDK's fetch-shaped handler (what
 * `@modelcontextprotocol/node`'s `toNodeHandler` does, without its Hono dependency). The body was
 * already parsed by the API's JSON parser, so it is passed along as JSON text.
 */
export function toWebRequest(req: ExpressRequest, signal: AbortSignal, dropHeaders: readonly string[] = []): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':') || dropHeaders.includes(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && req.body !== undefined;
  if (hasBody) {
    headers.delete('content-encoding');
    headers.delete('transfer-encoding');
    headers.delete('content-length');
  }
  return new Request(`http://${req.headers.host ?? 'localhost'}${req.originalUrl}`, {
    method: req.method,
    headers,
    signal,
    ...(hasBody && { body: JSON.stringify(req.body) }),
  });
}

/** Aborted when the client goes away before the answer is complete. */
export function untilClientGone(res: ExpressResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** Writes a web `Response` (JSON or an SSE stream) to Express, `extraHeaders` added. */
export async function sendWebResponse(
  res: ExpressResponse,
  response: Response,
  signal: AbortSignal,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  const headers: Record<string, string> = { ...extraHeaders };
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  try {
    for await (const chunk of response.body) {
      if (signal.aborted) break;
      if (!res.write(chunk))
        await new Promise<void>((resolve) => (signal.aborted ? resolve() : res.once('drain', resolve).once('close', resolve)));
    }
  } catch {
    // The exchange was aborted upstream (client gone): nothing left to write.
  }
  res.end();
}
