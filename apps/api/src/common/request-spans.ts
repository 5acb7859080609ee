import type { NextFunction, Request, Response } from 'express';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { contextOf, tracer } from '#workflow/nest';

/**
 * A server span per request (installed only while tracing is active), continuing the caller's
 * `traceparent`: what the request does — its store commands, the run it enqueues — hangs below
 * it. Named by the matched route's template (`POST /workflows/:id/runs`), never by the raw path,
 * which can hold a key (`/mcp/:id/key/:key`).
 */
export function requestSpans() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const span = tracer.startSpan(
      `${req.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } },
      contextOf(req.headers),
    );
    const active = trace.setSpan(context.active(), span);
    // Body parsing and the answer resume from the socket's events: bind them to the request's context.
    context.bind(active, req);
    context.bind(active, res);
    res.once('close', () => {
      const route = (req as Request & { route?: { path?: unknown } }).route?.path;
      const template = typeof route === 'string' ? `${req.baseUrl ?? ''}${route}` : 'unmatched route';
      span.updateName(`${req.method} ${template}`);
      span.setAttribute('http.route', template);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(active, next);
  };
}
