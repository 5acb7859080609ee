import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { api } from './support/http.js';
import { startFerretDb, type StartedService } from './support/services.js';
import { startApi, startStack, testConfig, type TestStack } from './support/stack.js';

describe('health', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('answers liveness', async () => {
    const res = await api(stack.apiUrl, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('is ready with mongo and redis up', async () => {
    const res = await api(stack.apiUrl, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', info: { mongo: { status: 'up' }, redis: { status: 'up' } } });
  });

  it('answers unknown routes with the error shape and a request id', async () => {
    const res = await api(stack.apiUrl, 'GET', '/no-such-thing', undefined, { 'x-request-id': 'req-123' });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', requestId: 'req-123' });
  });

  it('answers a body that is not JSON with 400 MALFORMED_JSON', async () => {
    const res = await api(stack.apiUrl, 'POST', '/toolsets', '{"url": ', { 'x-request-id': 'req-456' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'MALFORMED_JSON', requestId: 'req-456' });
  });
});

describe('readiness when the database goes away', () => {
  let ferret: StartedService;
  let close: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    ferret = await startFerretDb();
    const { app, url: apiUrl } = await startApi(testConfig({ MONGO_URL: ferret.url }));
    url = apiUrl;
    close = () => app.close();
  });
  afterAll(async () => {
    await close();
    await ferret.stop();
  });

  it('turns 503 naming mongo once its FerretDB is stopped, redis still up', async () => {
    expect((await api(url, 'GET', '/health/ready')).status).toBe(200);
    await ferret.stop();
    const res = await api<{ code: string; message: string; error: Record<string, unknown>; info: Record<string, unknown> }>(
      url,
      'GET',
      '/health/ready',
    );
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('NOT_READY');
    expect(Object.keys(res.body.error)).toEqual(['mongo']);
    expect(res.body.info).toMatchObject({ redis: { status: 'up' } });
    expect(res.body.message).toContain('mongo');
  });
});
