import type { Type } from '@nestjs/common';
import { ModulesContainer, NestFactory } from '@nestjs/core';
import { loadConfig } from '#workflow/nest';
import { AppModule } from '../app.module.js';
import { buildOpenApiDocument, routesOf, type DescribedRoute, type OpenApiDocument } from '../openapi/openapi-document.js';
import { controllersOf, packageVersion } from '../openapi/openapi.service.js';

export interface ApiDescription {
  routes: DescribedRoute[];
  /** Throws, naming them, while a route has no description. */
  build(): OpenApiDocument;
}

/**
 * The API's routes and document without a database: Nest's preview mode builds the module graph
 * (every controller, as the running API registers them) without instantiating any provider, so
 * nothing connects. Used by `npm run openapi` and by the tests that guard the description.
 */
export async function describeApi(): Promise<ApiDescription> {
  const config = loadConfig({ MONGO_URL: 'mongodb://127.0.0.1:1/describe', REDIS_URL: 'redis://127.0.0.1:1' });
  const app = await NestFactory.create(AppModule.forRoot(config), { preview: true, logger: false, abortOnError: false });
  let controllers: Type[];
  try {
    controllers = controllersOf(app.get(ModulesContainer));
  } finally {
    await app.close();
  }
  return { routes: routesOf(controllers), build: () => buildOpenApiDocument(controllers, packageVersion()) };
}

/** The committed form of the document (docs/openapi.json): stable key order, two-space indent. */
export function documentText(document: OpenApiDocument): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
