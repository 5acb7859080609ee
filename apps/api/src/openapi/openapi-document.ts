import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner } from '@nestjs/core';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { errorBody, ROUTE_DESCRIPTION, type AnswerDescription, type RouteDescription } from '../common/api-route.js';

/** One route as Nest registers it, with its description when it has one. */
export interface DescribedRoute {
  method: string;
  /** OpenAPI form: `/runs/{id}/logs`. */
  path: string;
  handler: string;
  description: RouteDescription | undefined;
}

export type OpenApiDocument = ReturnType<typeof createDocument>;

const VERBS: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
};

/** Answers any route can give besides its own: a fault, a dependency down, or (with a body) a body too large, too deep or not JSON. */
const COMMON_ERRORS = { 500: ['INTERNAL_ERROR'], 503: ['QUEUE_UNAVAILABLE', 'STORE_UNAVAILABLE'] } as const;
const BODY_ERRORS = { 400: ['MALFORMED_JSON', 'BODY_TOO_DEEP'], 413: ['BODY_TOO_LARGE'] } as const;
/** What the key guard answers on any route that needs a key (apps/api/src/api-keys/auth.guard.ts). */
const AUTH_ERRORS = { 401: ['UNAUTHENTICATED'], 403: ['FORBIDDEN'], 429: ['RATE_LIMITED'] } as const;
const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid',
  401: 'No valid API key',
  403: 'The key may not do this',
  404: 'Not found',
  405: 'Method not allowed',
  406: 'Not acceptable (the Accept header)',
  409: 'Conflict with the current state',
  413: 'The body is larger than the limit',
  415: 'Unsupported media type (the Content-Type header)',
  422: 'Understood but cannot be done (the cause is in code and errors)',
  429: 'Too many requests',
  500: 'A fault of the service (logged with the requestId)',
  503: 'Not ready, or a dependency (store, queue) is down: retry after Retry-After',
};

function joinPath(...parts: string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `{${segment.slice(1)}}` : segment))
    .join('/');
  return `/${joined}`;
}

function firstPath(value: unknown): string {
  return Array.isArray(value) ? String(value[0] ?? '') : typeof value === 'string' ? value : '';
}

/** Every route handler of the given controllers, read from the metadata Nest routes by. */
export function routesOf(controllers: Type[]): DescribedRoute[] {
  const scanner = new MetadataScanner();
  const routes: DescribedRoute[] = [];
  for (const controller of controllers) {
    const base = firstPath(Reflect.getMetadata(PATH_METADATA, controller));
    for (const name of scanner.getAllMethodNames(controller.prototype)) {
      const handler = (controller.prototype as Record<string, unknown>)[name] as object;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (path === undefined) continue;
      const method = VERBS[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod] ?? 'all';
      routes.push({
        method,
        path: joinPath(base, firstPath(path)),
        handler: `${controller.name}.${name}`,
        description: Reflect.getMetadata(ROUTE_DESCRIPTION, handler) as RouteDescription | undefined,
      });
    }
  }
  return routes.sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function pathParams(path: string, declared: z.ZodObject | undefined): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  if (!names.length) return undefined;
  const shape: Record<string, z.ZodType> = {};
  for (const name of names) shape[name] = declared?.shape[name] ?? z.string();
  return z.object(shape);
}

function answer(status: number, spec: z.ZodType | AnswerDescription): ZodOpenApiResponseObject {
  const full: AnswerDescription = spec instanceof z.ZodType ? { description: 'OK', schema: spec } : spec;
  return {
    description: full.description === 'OK' && status !== 200 ? `Status ${status}` : full.description,
    ...(full.headers ? { headers: full.headers } : {}),
    ...(full.schema ? { content: { [full.contentType ?? 'application/json']: { schema: full.schema } } } : {}),
  };
}

function errorAnswers(description: RouteDescription): Record<string, ZodOpenApiResponseObject> {
  const byStatus = new Map<number, Set<string> | z.ZodType>();
  const add = (status: number, codes: readonly string[] | z.ZodType) => {
    const known = byStatus.get(status);
    if (codes instanceof z.ZodType) byStatus.set(status, codes);
    else if (known instanceof z.ZodType) return;
    else byStatus.set(status, new Set([...(known ?? []), ...codes]));
  };
  for (const [status, codes] of Object.entries(description.errors ?? {})) if (codes) add(Number(status), codes);
  if (description.body) for (const [status, codes] of Object.entries(BODY_ERRORS)) add(Number(status), codes);
  if (!description.public) for (const [status, codes] of Object.entries(AUTH_ERRORS)) add(Number(status), codes);
  for (const [status, codes] of Object.entries(COMMON_ERRORS)) add(Number(status), codes);
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = codes instanceof z.ZodType ? codes : errorBody(status, [...codes].sort());
    responses[`${status}`] = { description: STATUS_TEXT[status] ?? `Status ${status}`, content: { 'application/json': { schema } } };
  }
  return responses;
}

function operation(route: DescribedRoute, description: RouteDescription): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, spec] of Object.entries(description.responses)) if (spec) responses[`${status}`] = answer(Number(status), spec);
  const path = pathParams(route.path, description.params);
  return {
    operationId: route.handler.replace('Controller.', '_'),
    summary: description.summary,
    ...(description.description ? { description: description.description } : {}),
    tags: description.tags ?? [route.path.split('/')[1] || 'service'],
    security: description.public ? [] : [{ bearer: [] }],
    requestParams: {
      ...(path ? { path } : {}),
      ...(description.query ? { query: description.query } : {}),
      ...(description.headers ? { header: description.headers } : {}),
    },
    ...(description.body ? { requestBody: { required: true, content: { 'application/json': { schema: description.body } } } } : {}),
    responses: { ...responses, ...errorAnswers(description) } as ZodOpenApiOperationObject['responses'],
  };
}

/** Routes without a description: the document refuses to be built while there is one. */
export function undescribedRoutes(routes: DescribedRoute[]): string[] {
  return routes.filter((route) => !route.description).map((route) => `${route.method.toUpperCase()} ${route.path} (${route.handler})`);
}

/** The OpenAPI 3.1 document of these controllers' routes. */
export function buildOpenApiDocument(controllers: Type[], version: string): OpenApiDocument {
  const routes = routesOf(controllers);
  const missing = undescribedRoutes(routes);
  if (missing.length) throw new Error(`Routes without @ApiRoute description: ${missing.join(', ')}`);
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const description = route.description as RouteDescription;
    const methods = route.method === 'all' ? (description.methods ?? []) : [route.method];
    if (!methods.length) throw new Error(`${route.handler} is an @All() route: list its methods in @ApiRoute({ methods })`);
    for (const method of methods) {
      const handler = methods.length > 1 ? `${route.handler}_${method}` : route.handler;
      paths[route.path] = { ...paths[route.path], [method]: operation({ ...route, handler }, description) };
    }
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'mcpflow',
        version,
        description:
          'Workflows whose nodes call tools published by MCP servers. Errors: `{statusCode, code, message, errors?, requestId}`.',
      },
      security: [{ bearer: [] }],
      paths,
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`' } },
      },
    },
    { reused: 'inline' },
  );
}
