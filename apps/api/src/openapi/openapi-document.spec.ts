import { readFileSync } from 'node:fs';
import { Controller, Get, Post } from '@nestjs/common';
import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { z } from 'zod';
import { ApiRoute } from '../common/api-route.js';
import { describeApi, documentText } from '../cli/describe-api.js';
import { buildOpenApiDocument, undescribedRoutes, routesOf } from './openapi-document.js';

@Controller('things')
class HalfDescribedController {
  @Get(':id')
  @ApiRoute({ summary: 'A thing', responses: { 200: z.object({ id: z.string() }) }, errors: { 404: ['NOT_FOUND'] } })
  get() {
    return { id: 'x' };
  }

  @Post()
  create() {
    return {};
  }
}

describe('the OpenAPI document', () => {
  it('describes every route the API registers (add @ApiRoute to a new handler)', async () => {
    const api = await describeApi();
    expect(api.routes.length).toBeGreaterThan(20);
    expect(undescribedRoutes(api.routes)).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 document, and docs/openapi.json is the one the routes build (npm run openapi)', async () => {
    const document = (await describeApi()).build();
    const result = await new Validator().validate(JSON.parse(documentText(document)) as Record<string, unknown>);
    expect(result).toEqual({ valid: true });
    expect(document.openapi).toBe('3.1.0');
    expect(readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8')).toBe(documentText(document));
  });

  it('refuses to build while a route lacks a description, naming it', () => {
    expect(undescribedRoutes(routesOf([HalfDescribedController]))).toEqual(['POST /things (HalfDescribedController.create)']);
    expect(() => buildOpenApiDocument([HalfDescribedController], '0')).toThrow('POST /things (HalfDescribedController.create)');
  });

  it('gives each answer the error body with the codes the route declares, and secures all but public routes', async () => {
    const document = (await describeApi()).build();
    const getRun = document.paths?.['/runs/{id}']?.get;
    const notFound = getRun?.responses?.['404'] as {
      content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }>;
    };
    const body = notFound.content['application/json'].schema;
    expect(body.required).toEqual(['statusCode', 'code', 'message', 'requestId']);
    expect(body.properties.code).toEqual({ type: 'string', enum: ['NOT_FOUND'] });
    expect(getRun?.security).toEqual([{ bearer: [] }]);
    expect(document.paths?.['/health']?.get?.security).toEqual([]);
    expect(document.paths?.['/openapi.json']?.get?.security).toEqual([]);
    expect(Object.keys(document.paths?.['/runs/{id}/events']?.get?.responses?.['200'] as object)).toContain('content');
    const events = document.paths?.['/runs/{id}/events']?.get?.responses?.['200'] as { content: Record<string, unknown> };
    expect(Object.keys(events.content)).toEqual(['text/event-stream']);
  });
});
