import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import type { AppConfig } from '#workflow/nest';

/**
 * Structured JSON logs (pino). Request headers that may carry credentials are redacted at the
 * logger, so a secret sent to the API never reaches a log line.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.body',
  'res.headers["set-cookie"]',
];

/** `/mcp/<id>/key/<api key>…` (MCP_KEY_IN_PATH) with the key replaced by `***`, for anything that shows a path. */
export function maskKeyInPath(path: string): string {
  return path.replace(/(\/mcp\/[^/?#]*\/key\/)[^/?#]*/gi, '$1***');
}

/**
 * pino-http's request serializer (already reduced to plain fields): the path may hold an API key.
 * Its `params` repeat the path's segments (the logger's middleware sees them as one `splat`), so
 * they are left out of such a line.
 */
function maskedRequest(req: { url?: string; params?: unknown }) {
  if (typeof req.url !== 'string') return req;
  const masked = maskKeyInPath(req.url);
  if (masked !== req.url) {
    req.url = masked;
    req.params = {};
  }
  return req;
}

/**
 * The request's id: the caller's `x-request-id` when it is sane, else a new UUID; echoed in the
 * response header. Idempotent, because errors raised before the logger ran (body parsing) need it too.
 */
export function assignRequestId(req: IncomingMessage & { id?: unknown }, res: ServerResponse): string {
  if (typeof req.id === 'string' && req.id) return req.id;
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
  req.id = id;
  if (!res.headersSent) res.setHeader('x-request-id', id);
  return id;
}

export interface LogOptions {
  /** Where log lines go (default stdout); e2e tests pass a stream they can read. */
  destination?: DestinationStream;
}

export function loggerModule(config: AppConfig, destination?: DestinationStream) {
  const options: PinoHttpOptions = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '***' },
    serializers: { req: maskedRequest },
    genReqId: assignRequestId,
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
  };
  return LoggerModule.forRoot({ pinoHttp: destination ? [options, destination] : options });
}
