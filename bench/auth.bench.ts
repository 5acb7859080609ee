/**
 * Auth benchmark (`npm run bench:auth`): what the access check costs per request, in one run on
 * loopback. The real API app plus one bench-only controller with two empty handlers, one
 * `@Public()` and one `@RequireScope('read')`; requests alternate between them (same process,
 * same moment, same HTTP path length), so the difference is the guard: the key read by its hash,
 * the Redis rate-limit count, the scope check. Measured with 1 key in the store and again with
 * 1,000 (FerretDB v1 scans a collection even for an indexed field). Writes bench/results/auth.json.
 */
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import mongoose from 'mongoose';
import { ApiKeyRepository } from '#workflow/nest';
import { Public, RequireScope } from '../apps/api/src/api-keys/access.decorators.js';
import { ApiKeyAuthenticator } from '../apps/api/src/api-keys/api-key-authenticator.js';
import { generateApiKey } from '../apps/api/src/api-keys/api-key-token.js';
import { RateLimits } from '../apps/api/src/api-keys/rate-limits.js';
import { AppModule } from '../apps/api/src/app.module.js';
import { benchConfig } from './bench-config.js';

const WARM_UP = 200;
const SAMPLES = 1500;
const EXTRA_KEYS = 1000;
const RESULTS_FILE = 'bench/results/auth.json';
const TIME_LIMIT_MS = 5 * 60_000;

@Controller('bench')
class BenchController {
  @Get('open')
  @Public()
  open() {
    return { ok: true };
  }

  @Get('keyed')
  @RequireScope('read')
  keyed() {
    return { ok: true };
  }
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));
function stats(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]);
  return { samples: times.length, p50Ms: at(0.5), p95Ms: at(0.95), meanMs: round(times.reduce((a, b) => a + b, 0) / times.length) };
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await call();
  return performance.now() - began;
}

/** Alternating public / keyed requests; both must answer 200. */
async function compare(apiUrl: string, key: string) {
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(apiUrl + path, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${path} → ${res.status}`);
  };
  const auth = { authorization: `Bearer ${key}` };
  for (let i = 0; i < WARM_UP; i++) {
    await get('/bench/open');
    await get('/bench/keyed', auth);
  }
  const open: number[] = [];
  const keyed: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    open.push(await timed(() => get('/bench/open')));
    keyed.push(await timed(() => get('/bench/keyed', auth)));
  }
  const publicRoute = stats(open);
  const keyedRoute = stats(keyed);
  return {
    publicRoute,
    keyedRoute,
    authCostP50Ms: round(keyedRoute.p50Ms - publicRoute.p50Ms),
    ratioP50: round(keyedRoute.p50Ms / publicRoute.p50Ms),
  };
}

/** The guard's two store calls alone, in process. */
async function parts(app: NestExpressApplication, key: string) {
  const authenticator = app.get(ApiKeyAuthenticator);
  const limits = app.get(RateLimits);
  const lookup: number[] = [];
  const count: number[] = [];
  for (let i = 0; i < 300; i++) {
    lookup.push(await timed(() => authenticator.authenticate(key)));
    count.push(await timed(() => limits.consumeKey('bench')));
  }
  return { keyLookupP50Ms: stats(lookup).p50Ms, rateLimitCountP50Ms: stats(count).p50Ms };
}

async function main(): Promise<void> {
  const deadline = setTimeout(() => {
    console.error(`auth benchmark exceeded ${TIME_LIMIT_MS / 1000} s`);
    process.exit(1);
  }, TIME_LIMIT_MS);
  const { config, services } = await benchConfig();
  const key = config.auth.adminApiKey as string;

  @Module({ imports: [AppModule.forRoot(config)], controllers: [BenchController] })
  class BenchModule {}
  const app = await NestFactory.create<NestExpressApplication>(BenchModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    const oneKey = { ...(await compare(apiUrl, key)), ...(await parts(app, key)) };
    const keys = app.get(ApiKeyRepository);
    for (let i = 0; i < EXTRA_KEYS; i++) {
      const { hash, prefix } = generateApiKey();
      await keys.create({
        name: `bench ${i}`,
        hash,
        prefix,
        scopes: ['read'],
        workflows: null,
        mcpServers: null,
        expiresAt: null,
        createdBy: null,
      });
    }
    const manyKeys = { ...(await compare(apiUrl, key)), ...(await parts(app, key)) };
    const result = {
      measuredAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      database: process.env.MONGO_URL ? 'MONGO_URL' : 'throwaway FerretDB v1 (SQLite)',
      oneKey,
      [`keys${EXTRA_KEYS + 1}`]: manyKeys,
    };
    mkdirSync('bench/results', { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(result, null, 2)}\n`);
    console.table({
      'public route p50 (ms)': [oneKey.publicRoute.p50Ms, manyKeys.publicRoute.p50Ms],
      'keyed route p50 (ms)': [oneKey.keyedRoute.p50Ms, manyKeys.keyedRoute.p50Ms],
      'auth cost p50 (ms)': [oneKey.authCostP50Ms, manyKeys.authCostP50Ms],
      'key lookup alone p50 (ms)': [oneKey.keyLookupP50Ms, manyKeys.keyLookupP50Ms],
      'rate-limit count alone p50 (ms)': [oneKey.rateLimitCountP50Ms, manyKeys.rateLimitCountP50Ms],
    });
    console.log(`(columns: 1 key, ${EXTRA_KEYS + 1} keys in the store) → ${RESULTS_FILE}`);
  } finally {
    await app.close();
    const db = await mongoose.createConnection(config.mongoUrl).asPromise();
    await db.dropDatabase();
    await db.close();
    for (const service of services.reverse()) await service.stop();
    clearTimeout(deadline);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
