import { randomBytes } from 'node:crypto';
import { loadConfig, type AppConfig } from '#workflow/nest';
import { newAdminKey } from '../test/support/auth.js';
import { startFerretDb, startRedis, type StartedService } from '../test/support/services.js';

/**
 * The services a benchmark runs against (MONGO_URL / REDIS_URL when given, else throwaway
 * FerretDB v1 + Redis on loopback) and a configuration over them with its own database, BullMQ
 * prefix and seeded admin key (`config.auth.adminApiKey`). Rate limits stay on, far above what a
 * benchmark sends, so their cost is in the figures.
 */
export async function benchConfig(overrides: Record<string, string> = {}): Promise<{ config: AppConfig; services: StartedService[] }> {
  const services: StartedService[] = [];
  const mongoBase = process.env.MONGO_URL ?? (services[services.length] = await startFerretDb()).url;
  const redisUrl = process.env.REDIS_URL ?? (services[services.length] = await startRedis()).url;
  const id = randomBytes(4).toString('hex');
  const mongo = new URL(mongoBase);
  mongo.pathname = `/bench_${id}`;
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    API_PORT: '0',
    WORKER_METRICS_PORT: '0',
    MONGO_URL: mongo.toString(),
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: `bench_${id}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: newAdminKey(),
    RATE_LIMIT_PER_MINUTE: '10000000',
    ...overrides,
  });
  return { config, services };
}
