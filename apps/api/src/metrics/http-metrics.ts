import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '#workflow/nest';

/**
 * Times every request into `mcpflow_http_request_duration_seconds`, labelled with the route's
 * template as Express matched it (`/runs/:id`), never the raw path: run ids and other ids in URLs
 * would make a series each. Requests no route matched count as `unmatched`.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route: unknown = (req.route as { path?: unknown } | undefined)?.path;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.httpRequest(req.method, typeof route === 'string' ? route : undefined, res.statusCode, seconds);
    });
    next();
  };
}
