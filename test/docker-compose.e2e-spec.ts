import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { loadConfig } from '#workflow/nest';

// No Docker engine runs here: the compose file is checked by parsing it, and every service's
// environment is fed through the real config loader, so a renamed variable breaks this test.
interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(readFileSync(new URL('../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, Service>;
};
const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
/** Compose's interpolation as a user without an .env file gets it: `${X:-default}` → default; SECRETS_KEY is given. */
const resolveEnv = (env: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      v.startsWith('${SECRETS_KEY') ? 'ab'.repeat(8) + '0123456789abcdef'.repeat(3) : v.replace(/^\$\{\w+:-(.*)\}$/, '$1'),
    ]),
  );

describe('docker-compose.yml', () => {
  const { services } = compose;

  it('runs MongoDB 7, Redis 7 (noeviction, append-only), API and worker', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'mongo', 'redis', 'worker']);
    expect(services.mongo.image).toBe('mongo:7');
    expect(services.redis.image).toBe('redis:7');
    expect(services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
  });

  it('has a health check on every long-running service, and API/worker wait for healthy stores', () => {
    for (const name of ['mongo', 'redis', 'api']) expect(services[name].healthcheck?.test.length).toBeGreaterThan(1);
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({ mongo: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
    }
    expect(services.api.healthcheck?.test.join(' ')).toContain('/health/ready');
  });

  it('publishes only the API, on loopback, on the configured port', () => {
    expect(services.api.ports).toEqual([`127.0.0.1:3000:${services.api.environment?.API_PORT}`]);
    expect(services.worker.ports).toBeUndefined();
    expect(services.mongo.ports).toBeUndefined();
  });

  it('gives API and worker an environment the config loader accepts as production', () => {
    for (const name of ['api', 'worker']) {
      const env = resolveEnv(services[name].environment ?? {});
      const config = loadConfig(env);
      expect(config.env).toBe('production');
      expect(new URL(config.mongoUrl).hostname).toBe('mongo');
      expect(new URL(config.redisUrl).hostname).toBe('redis');
      expect(services[name].environment?.SECRETS_KEY).toMatch(/^\$\{SECRETS_KEY:\?/);
    }
  });

  it('builds API and worker from the multi-stage Dockerfile whose output holds their entry points', () => {
    expect(services.api.build).toBe('.');
    expect(services.worker.build).toBe('.');
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(services.api.command).toEqual(['node', 'dist/apps/api/src/main.js']);
    expect(services.worker.command).toEqual(['node', 'dist/apps/worker/src/main.js']);
  });
});
