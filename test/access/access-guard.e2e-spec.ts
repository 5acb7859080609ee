import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { anonymousFetch, bearer, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { dropTestData, startApi, testConfig } from '../support/stack.js';
import type { AppConfig } from '#workflow/nest';

/**
 * The routes that answer without a key: health and the API's own description, and inbound webhook
 * deliveries, which prove their sender with a signature instead (test/triggers/webhooks.e2e-spec.ts).
 */
// The OAuth redirect target (its single-use state binds it) and mcpflow's client metadata document are public too.
const PUBLIC_PATHS = [
  '/health',
  '/health/ready',
  '/openapi.json',
  '/docs',
  '/hooks/:webhookId',
  '/oauth/callback',
  '/oauth/client-metadata.json',
];

interface Route {
  method: string;
  path: string;
}

/** Every route the app serves, read from Express's router: a new route is in this list without anyone adding it. */
function routesOf(app: NestExpressApplication): Route[] {
  const router = (
    app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }
  ).router;
  return router.stack
    .flatMap((layer) =>
      layer.route
        ? Object.keys(layer.route.methods)
            .filter((m) => m !== '_all')
            .map((method) => ({ method: method.toUpperCase(), path: layer.route!.path }))
        : [],
    )
    .filter((route) => !route.path.includes('*')); // middleware mounts (logging), not routes
}

/** A concrete URL for a route pattern: parameters get a well-formed id that exists nowhere. */
const concrete = (path: string) =>
  path.replace(/:(\w+)/g, (_m, name: string) => (name === 'version' ? '1' : name === 'tool' ? 'echo' : '65f000000000000000000000'));

async function anonymous(url: string, method: string, headers: Record<string, string> = {}) {
  const res = await anonymousFetch(url, { method, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

describe('access: every route needs a key', () => {
  let config: AppConfig;
  let app: NestExpressApplication;
  let apiUrl: string;
  let routes: Route[];

  beforeAll(async () => {
    config = testConfig();
    ({ app, url: apiUrl } = await startApi(config));
    routes = routesOf(app);
  });

  afterAll(async () => {
    await app.close();
    await dropTestData(config);
  });

  it('finds the routes in the router (including the key routes themselves)', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /health/ready',
        'POST /api-keys',
        'DELETE /api-keys/:id',
        'GET /runs/:id/events',
        'POST /workflows/:id/runs',
      ]),
    );
    expect(routes.length).toBeGreaterThan(25);
  });

  it('answers 401 UNAUTHENTICATED without a key on every route but health, before anything else', async () => {
    const guarded = routes.filter((r) => !PUBLIC_PATHS.includes(r.path));
    for (const route of guarded) {
      if (route.path.startsWith('/mcp/')) continue; // the MCP endpoint answers in JSON-RPC shape: checked below
      const res = await anonymous(apiUrl + concrete(route.path), route.method);
      expect({ route: `${route.method} ${route.path}`, status: res.status, code: res.body.code }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
        code: 'UNAUTHENTICATED',
      });
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    for (const path of ['/health', '/health/ready', '/openapi.json']) expect((await anonymous(apiUrl + path, 'GET')).status).toBe(200);
    const mcpRoutes = guarded.filter((r) => r.path.startsWith('/mcp/') && ['GET', 'POST', 'DELETE'].includes(r.method));
    expect(mcpRoutes.length).toBeGreaterThan(0);
    for (const route of mcpRoutes) {
      const res = await anonymous(apiUrl + concrete(route.path), route.method);
      // /mcp/:id/key/:key… carry their key in the path, and are off by default (MCP_KEY_IN_PATH): 404 before any check.
      expect({ route: `${route.method} ${route.path}`, status: res.status, error: typeof res.body.error }).toEqual({
        route: `${route.method} ${route.path}`,
        status: route.path.includes('/key/') ? 404 : 401,
        error: 'object',
      });
    }
  });

  it('gives one answer for a missing, malformed, unknown or wrongly sent key (no oracle)', async () => {
    const admin = keyOf(apiUrl);
    const unknown = `mcpf_${'x'.repeat(43)}`;
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer not-a-key' },
      { authorization: `Bearer ${unknown}` },
      { authorization: `Basic ${Buffer.from(`u:${admin}`).toString('base64')}` },
      { authorization: `Bearer ${admin}x` },
      { 'x-api-key': admin },
    ];
    const answers = await Promise.all(attempts.map((headers) => anonymous(`${apiUrl}/workflows`, 'GET', headers)));
    for (const res of answers) {
      expect(res.status).toBe(401);
      const { requestId, ...rest } = res.body;
      expect(typeof requestId).toBe('string');
      expect(rest).toEqual({ statusCode: 401, code: 'UNAUTHENTICATED', message: answers[0].body.message });
    }
    expect((await api(apiUrl, 'GET', '/workflows', undefined, { authorization: `bearer  ${admin}` })).status).toBe(200);
  });

  it('checks the key on streams and waits too (SSE, ?wait)', async () => {
    const events = await anonymous(`${apiUrl}/runs/65f000000000000000000000/events`, 'GET', { accept: 'text/event-stream' });
    expect(events.status).toBe(401);
    const wait = await anonymousFetch(`${apiUrl}/workflows/65f000000000000000000000/runs?wait=5000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"inputs": {}}',
    });
    expect(wait.status).toBe(401);
    expect((await api(apiUrl, 'GET', '/runs/65f000000000000000000000/events', undefined, bearer(keyOf(apiUrl)))).status).toBe(404);
  });
});
