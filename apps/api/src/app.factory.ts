import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from '#workflow/nest';
import { AppModule } from './app.module.js';
import type { LogOptions } from './common/logging.js';

/** Builds the API application (used by main.ts and by e2e tests, which boot the real thing). */
export async function createApiApp(config: AppConfig, logs: LogOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, logs), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.useBodyParser('json', { limit: config.api.bodyLimitBytes });
  app.enableShutdownHooks();
  return app;
}
