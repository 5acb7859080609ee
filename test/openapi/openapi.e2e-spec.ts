import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { api } from '../support/http.js';
import { startStack, type TestStack } from '../support/stack.js';

describe('the served description', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('serves /openapi.json: a valid OpenAPI 3.1 document, the committed docs/openapi.json', async () => {
    const res = await api(stack.apiUrl, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(await new Validator().validate(res.body)).toEqual({ valid: true });
    expect(res.body).toEqual(JSON.parse(readFileSync('docs/openapi.json', 'utf8')));
  });

  it('serves /docs and its viewer from this origin', async () => {
    const page = await fetch(`${stack.apiUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(['docs/assets/swagger-ui.css', 'docs/assets/swagger-ui-bundle.js']);
    for (const asset of assets) {
      const res = await fetch(`${stack.apiUrl}/${asset}`);
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    }
  });
});
