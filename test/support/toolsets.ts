import mongoose from 'mongoose';
import type { AppConfig } from '#workflow/nest';
import { createApiApp } from '../../apps/api/src/app.factory.js';
import { authenticateAs } from './auth.js';
import { dropTestData, testConfig } from './stack.js';

/**
 * An API (no worker) whose log lines are kept in memory, at `debug` level unless told otherwise,
 * so a test can prove what never reaches a log. `close()` (idempotent) stops it and drops its data
 * unless `keepData` (several APIs over one database, e.g. a key rotation).
 */
export interface LoggedApi {
  config: AppConfig;
  url: string;
  logs: string[];
  close(): Promise<void>;
}

export async function startLoggedApi(overrides: Record<string, string> = {}, options: { keepData?: boolean } = {}): Promise<LoggedApi> {
  const config = testConfig({ LOG_LEVEL: 'debug', ...overrides });
  const logs: string[] = [];
  const app = await createApiApp(config, { destination: { write: (line: string) => void logs.push(line) } });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  if (config.auth.adminApiKey) authenticateAs(url, config.auth.adminApiKey);
  let closed = false;
  return {
    config,
    url,
    logs,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      if (!options.keepData) await dropTestData(config);
    },
  };
}

/** Every document of every collection of the stack's database, as MongoDB holds them (no mongoose mapping). */
export async function rawDatabaseDump(config: AppConfig): Promise<Record<string, unknown[]>> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    const db = connection.db;
    if (!db) throw new Error('no database handle');
    const dump: Record<string, unknown[]> = {};
    for (const { name } of await db.listCollections().toArray()) dump[name] = await db.collection(name).find({}).toArray();
    return dump;
  } finally {
    await connection.close();
  }
}

/** Inserts a raw document (e.g. a workflow that uses a toolset) into the stack's database. */
export async function insertRaw(config: AppConfig, collection: string, doc: Record<string, unknown>): Promise<void> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    await connection.collection(collection).insertOne(doc);
  } finally {
    await connection.close();
  }
}

/** Updates raw documents of the stack's database (e.g. to point a workflow at a version inserted raw). */
export async function updateRaw(
  config: AppConfig,
  collection: string,
  filter: Record<string, unknown>,
  update: Record<string, unknown>,
): Promise<void> {
  const connection = await mongoose.createConnection(config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    await connection.collection(collection).updateMany(filter, update);
  } finally {
    await connection.close();
  }
}
