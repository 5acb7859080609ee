import { randomUUID } from 'node:crypto';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import type { AppConfig } from '#workflow';

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

export interface LogOptions {
  /** Where log lines go (default stdout); e2e tests pass a stream they can read. */
  destination?: DestinationStream;
}

export function loggerModule(config: AppConfig, destination?: DestinationStream) {
  const options: PinoHttpOptions = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '***' },
    genReqId: (req, res) => {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
      res.setHeader('x-request-id', id);
      return id;
    },
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
  };
  return LoggerModule.forRoot({ pinoHttp: destination ? [options, destination] : options });
}
