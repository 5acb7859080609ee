import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import { Metrics, tracingActive, type AppConfig } from '#workflow/nest';
import { AppModule } from './app.module.js';
import { refuseDeepJson } from './common/json-depth.js';
import type { LogOptions } from './common/logging.js';
import { requestSpans } from './common/request-spans.js';
import { httpMetrics } from './metrics/http-metrics.js';
import { HOOKS_PATH, hookBodyReader } from './webhooks/hook-body.js';
import { serveConsole } from './web/serve-console.js';

/** Builds the API application (used by main.ts and by e2e tests, which boot the real thing). */
export async function createApiApp(config: AppConfig, logs: LogOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logs), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  // Off by default: X-Forwarded-For decides the client's address (rate limits, failed-auth block) only behind proxies named here.
  app.set('trust proxy', config.api.trustProxy);
  if (tracingActive()) app.use(requestSpans());
  app.use(httpMetrics(app.get(Metrics)));
  // Inbound webhooks are signed over their raw bytes: read them as such before the JSON parser would.
  app.use(HOOKS_PATH, hookBodyReader(config.triggers.hookBodyLimitBytes, app.get(Metrics)));
  // `verify` is body-parser's own hook (Nest's option type leaves it out because its rawBody mode sets it; that mode is off here).
  const jsonOptions = { limit: config.api.bodyLimitBytes, verify: refuseDeepJson } as NestExpressBodyParserOptionsFor<'json'>;
  app.useBodyParser('json', jsonOptions);
  // The /docs page's viewer, from the npm package: no CDN, so it works on machines without internet.
  const swaggerUi = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  app.useStaticAssets(swaggerUi, { prefix: '/docs/assets/', index: false });
  serveConsole(app, (message) => app.get(Logger).warn(message));
  app.enableShutdownHooks();
  return app;
}
