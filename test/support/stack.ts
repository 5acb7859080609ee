import { randomBytes } from 'node:crypto';
import mongoose from 'mongoose';
import { Redis } from 'ioredis';
import type { INestApplicationContext } from '@nestjs/common';
import { loadConfig, type AppConfig } from '#workflow/nest';
import { createApiApp } from '../../apps/api/src/app.factory.js';
import { createWorkerApp } from '../../apps/worker/src/worker.factory.js';
import { authenticateAs, newAdminKey } from './auth.js';

/**
 * Boots the real API and worker in this process against the real services of the test run
 * (MONGO_URL / REDIS_URL from scripts/dev.sh test). Each stack gets its own database name and
 * its own BullMQ prefix, and `close()` drops both.
 */
export interface TestStack {
  config: AppConfig;
  apiUrl: string;
  close(): Promise<void>;
}

export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  const id = randomBytes(4).toString('hex');
  const mongo = new URL(requireEnv('MONGO_URL'));
  mongo.pathname = `/t_${id}`;
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    API_PORT: '0',
    WORKER_METRICS_PORT: '0',
    MONGO_URL: mongo.toString(),
    REDIS_URL: requireEnv('REDIS_URL'),
    QUEUE_PREFIX: `t_${id}`,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    // Every stack seeds its own admin key, which the test support sends for it (support/auth.ts);
    // rate limits stay on, high enough for polling tests (the access suite sets its own).
    ADMIN_API_KEY: newAdminKey(),
    RATE_LIMIT_PER_MINUTE: '100000',
    AUTH_FAILURES_PER_MINUTE: '1000',
    ...overrides,
  });
}

function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with scripts/dev.sh test`);
  return value;
}

export async function startApi(config: AppConfig) {
  const app = await createApiApp(config);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  if (config.auth.adminApiKey) authenticateAs(url, config.auth.adminApiKey);
  return { app, url };
}

export async function startWorker(config: AppConfig): Promise<INestApplicationContext> {
  return createWorkerApp(config);
}

export async function startStack(overrides: Record<string, string> = {}, options = { worker: true }): Promise<TestStack> {
  const config = testConfig(overrides);
  const api = await startApi(config);
  const worker = options.worker ? await startWorker(config) : undefined;
  return {
    config,
    apiUrl: api.url,
    async close() {
      await worker?.close();
      await api.app.close();
      await dropTestData(config);
    },
  };
}

/** Removes what a test stack wrote: its database and its BullMQ keys. */
export async function dropTestData(config: AppConfig): Promise<void> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    await connection.dropDatabase();
  } finally {
    await connection.close();
  }
  await dropQueueKeys(config);
}

/** Removes a test's BullMQ keys (everything under its `QUEUE_PREFIX`). */
export async function dropQueueKeys(config: AppConfig): Promise<void> {
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${config.queuePrefix}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
