import { SetMetadata } from '@nestjs/common';
import { z } from 'zod';

/**
 * How a route describes itself for the OpenAPI document: the same zod schemas that validate
 * its request, plus the shapes of its answers. Every route handler carries one
 * (`@ApiRoute({...})` under its `@Get()`/`@Post()`…); a test fails when one does not.
 */
export interface RouteDescription {
  summary: string;
  description?: string;
  /** Defaults to the first segment of the controller's path (`toolsets`, `runs`…). */
  tags?: string[];
  /** Path parameters: `:name` segments not listed here are described as plain strings. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  /** The JSON request body (schema of its input: what a client sends). */
  body?: z.ZodType;
  /** Successful answers by status: a schema (JSON body) or a full answer description. */
  responses: Partial<Record<SuccessStatus, z.ZodType | AnswerDescription>>;
  /**
   * The error codes each status can carry (`{404: ['NOT_FOUND']}`): each becomes the error body
   * `{statusCode, code, message, errors?, requestId}` with `code` limited to them. A schema
   * replaces the body where one status adds fields (the readiness report's details).
   */
  errors?: Partial<Record<ErrorStatus, readonly string[] | z.ZodType>>;
  /** Answers without an API key (health, the API's own description). */
  public?: boolean;
  /** An `@All()` route: the methods it really serves, each described alike. */
  methods?: readonly ('get' | 'post' | 'delete')[];
}

export type SuccessStatus = 200 | 201 | 202 | 204;
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 406 | 409 | 413 | 415 | 422 | 429 | 500 | 503;

export interface AnswerDescription {
  description: string;
  /** Absent: an answer without a body (204). */
  schema?: z.ZodType;
  /** `application/json` unless told (`text/event-stream`, `text/html`, `text/plain`). */
  contentType?: string;
  headers?: z.ZodObject;
}

export const ROUTE_DESCRIPTION = 'mcpflow:route-description';

export const ApiRoute = (description: RouteDescription) => SetMetadata(ROUTE_DESCRIPTION, description);

/** One problem of a request, as `errors[]` carries it; MCP causes add their `transport`. */
export const problemSchema = z
  .looseObject({
    path: z.string().optional(),
    code: z.string(),
    message: z.string(),
  })
  .meta({ id: 'Problem' });

/** The error body of every endpoint (SPEC §6), `code` narrowed to what this answer can carry. */
export function errorBody(statusCode: number, codes: readonly string[]) {
  return z.object({
    statusCode: z.literal(statusCode),
    code: codes.length ? z.enum(codes as [string, ...string[]]) : z.string(),
    message: z.string(),
    errors: z.array(problemSchema).optional(),
    requestId: z.string(),
  });
}

/** One event of a `text/event-stream` answer, as a client's EventSource parser hands it over. */
export const serverSentEvent = z
  .object({ event: z.string().optional(), data: z.string(), id: z.string().optional(), retry: z.number().optional() })
  .meta({ id: 'ServerSentEvent', description: 'One server-sent event (each `data` a JSON text unless the route says otherwise)' });

/** `?limit&cursor` pages: `{items, nextCursor}`, newest first. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), nextCursor: z.string().nullable() });
}

/** Ids of stored things (MongoDB ObjectIds) as path parameters. */
export const idParams = z.object({ id: z.string().meta({ description: 'The id (24 hex digits)', example: '6b02c0ffee0000000000beef' }) });
