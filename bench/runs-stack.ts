import mongoose from 'mongoose';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { createApiApp } from '../apps/api/src/app.factory.js';
import { authenticateAs } from '../test/support/auth.js';
import { benchConfig } from './bench-config.js';
import { spawnWorker, type WorkerProcess } from '../test/support/worker-process.js';

/**
 * What the runs benchmark measures against: MongoDB-compatible store and Redis (MONGO_URL /
 * REDIS_URL when given, else throwaway FerretDB v1 + Redis on loopback), the real API in this
 * process, ONE real worker process, and a fixture MCP server with an `echo` tool.
 */
export interface BenchStack {
  config: AppConfig;
  apiUrl: string;
  fixture: FixtureServer;
  worker: WorkerProcess;
  /** What answered on MONGO_URL: FerretDB or MongoDB, and its version. */
  database: string;
  /** Empties runs and node executions between phases (FerretDB v1 scans whole collections). */
  clearRuns(): Promise<void>;
  close(): Promise<void>;
}

async function databaseName(mongoUrl: string): Promise<string> {
  const connection = await mongoose.createConnection(mongoUrl).asPromise();
  try {
    const info = (await connection.db?.admin().command({ buildInfo: 1 })) as {
      version?: string;
      ferretdbVersion?: string;
      ferretdb?: { version?: string };
    };
    const ferret = info.ferretdbVersion ?? info.ferretdb?.version;
    return ferret ? `FerretDB ${ferret} (MongoDB ${info.version} wire protocol)` : `MongoDB ${info.version}`;
  } finally {
    await connection.close();
  }
}

/** `workerEnv`: settings of the worker process beyond the stack's configuration (e.g. retention off). */
export async function startBenchStack(workerConcurrency: number, workerEnv: Record<string, string> = {}): Promise<BenchStack> {
  const { config, services: started } = await benchConfig({ WORKER_CONCURRENCY: String(workerConcurrency) });
  const app: NestExpressApplication = await createApiApp(config);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const apiUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // Requests to this API carry the seeded admin key, as a client's would.
  authenticateAs(apiUrl, config.auth.adminApiKey as string);
  const fixture = await startFixtureServer();
  const worker = await spawnWorker(config, workerEnv);
  const db = await mongoose.createConnection(config.mongoUrl).asPromise();
  return {
    config,
    apiUrl,
    fixture,
    worker,
    database: await databaseName(config.mongoUrl),
    clearRuns: async () => {
      await db.collection('runs').deleteMany({});
      await db.collection('node_executions').deleteMany({});
    },
    close: async () => {
      worker.kill('SIGTERM');
      await worker.exited;
      await app.close();
      await fixture.close();
      await db.dropDatabase();
      await db.close();
      for (const service of started.reverse()) await service.stop();
    },
  };
}
