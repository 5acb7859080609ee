import mongoose from 'mongoose';
import { startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { AppConfig } from '#workflow/nest';
import { spawnApi, type ApiProcess } from '../test/support/api-process.js';
import { authenticateAs } from '../test/support/auth.js';
import { benchConfig } from './bench-config.js';
import { listenerPid, type MeteredProcess } from './process-cpu.js';
import { spawnWorker, type WorkerProcess } from '../test/support/worker-process.js';

/**
 * What the runs benchmarks measure against: MongoDB-compatible store and Redis (MONGO_URL /
 * REDIS_URL when given, else throwaway FerretDB v1 + Redis on loopback), the real API and ONE real
 * worker, each a process of its own (`dist/apps/…/main.js`, as deployed), and a fixture MCP server
 * with an `echo` tool in this process. Every process of the stack is separate, so the CPU each one
 * burns can be read from /proc (`processes`); this process (the client and the MCP server) is not
 * part of it.
 */
export interface BenchStack {
  config: AppConfig;
  apiUrl: string;
  api: ApiProcess;
  fixture: FixtureServer;
  worker: WorkerProcess;
  /** What answered on MONGO_URL: FerretDB or MongoDB, and its version. */
  database: string;
  /**
   * The stack's processes by part — API, worker(s) (`workers()`: the first plus any spawned
   * later), store, PostgreSQL under it (when FERRETDB_POSTGRESQL_URL names it), Redis — found by
   * the loopback port each listens on. Parts not running on this machine are left out.
   */
  processes(workers: () => number[]): MeteredProcess[];
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

const portOf = (url: string | undefined) => (url ? Number(new URL(url).port) || undefined : undefined);

/** `workerEnv`, `apiEnv`: settings of the worker and API processes beyond the stack's configuration (e.g. retention off, tracing on). */
export async function startBenchStack(
  workerConcurrency: number,
  workerEnv: Record<string, string> = {},
  apiEnv: Record<string, string> = {},
): Promise<BenchStack> {
  const { config, services: started } = await benchConfig({ WORKER_CONCURRENCY: String(workerConcurrency) });
  // The product's default log level: a deployment's per-request logging is part of a run's cost.
  const api = await spawnApi(config, { ADMIN_API_KEY: config.auth.adminApiKey as string, LOG_LEVEL: 'info', ...apiEnv });
  // Requests to this API carry the seeded admin key, as a client's would.
  authenticateAs(api.url, config.auth.adminApiKey as string);
  const fixture = await startFixtureServer();
  const worker = await spawnWorker(config, workerEnv);
  const db = await mongoose.createConnection(config.mongoUrl).asPromise();
  const database = await databaseName(config.mongoUrl);
  const postgresPort = portOf(process.env.FERRETDB_POSTGRESQL_URL);
  const listeners = new Map<string, number | undefined>([
    [database.startsWith('FerretDB') ? 'FerretDB' : 'MongoDB', listenerPid(portOf(config.mongoUrl) ?? 27017)],
    ['PostgreSQL', postgresPort ? listenerPid(postgresPort) : undefined],
    ['Redis', listenerPid(portOf(config.redisUrl) ?? 6379)],
  ]);
  return {
    config,
    apiUrl: api.url,
    api,
    fixture,
    worker,
    database,
    processes: (workers) => [
      { name: 'API', pids: () => [api.pid] },
      { name: 'worker', pids: workers },
      ...[...listeners].flatMap(([name, pid]) => (pid ? [{ name, pids: () => [pid] }] : [])),
    ],
    clearRuns: async () => {
      await db.collection('runs').deleteMany({});
      await db.collection('node_executions').deleteMany({});
    },
    close: async () => {
      worker.kill('SIGTERM');
      await worker.exited;
      await api.stop();
      await fixture.close();
      await db.dropDatabase();
      await db.close();
      for (const service of started.reverse()) await service.stop();
    },
  };
}
