import { Controller, Get, Header } from '@nestjs/common';
import { z } from 'zod';
import { ApiRoute } from '../common/api-route.js';
import { Public } from '../api-keys/access.decorators.js';
import { OpenApiService } from './openapi.service.js';

/** Swagger UI, served from this origin (swagger-ui-dist under /docs/assets): no CDN, works offline. */
const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>mcpflow API</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#swagger-ui', validatorUrl: null, deepLinking: true });
  </script>
</body>
</html>
`;

@Controller()
@Public()
export class OpenApiController {
  constructor(private readonly openapi: OpenApiService) {}

  @Get('openapi.json')
  @ApiRoute({
    summary: 'This document: the OpenAPI 3.1 description of the API',
    tags: ['service'],
    public: true,
    responses: { 200: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }) },
  })
  document() {
    return this.openapi.get();
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  @ApiRoute({
    summary: 'The API reference as a page (Swagger UI over /openapi.json)',
    tags: ['service'],
    public: true,
    responses: { 200: { description: 'An HTML page', contentType: 'text/html', schema: z.string() } },
  })
  page(): string {
    return DOCS_PAGE;
  }
}
