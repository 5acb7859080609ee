import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Throwaway database servers for tests that need one of their own (e.g. to stop it).
 * `scripts/dev.sh test` exports FERRETDB_BIN and REDIS_SERVER_BIN.
 */
export interface StartedService {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before listening on ${port}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => resolve(true)).once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    }).finally(() => undefined);
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on 127.0.0.1:${port} within ${timeoutMs} ms`);
}

function stopper(child: ChildProcess, cleanup: () => void): () => Promise<void> {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    cleanup();
  };
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with scripts/dev.sh test`);
  return value;
}

/**
 * A throwaway FerretDB v1: on the PostgreSQL database `postgresqlUrl` names (default: the test run's,
 * FERRETDB_POSTGRESQL_URL), or on SQLite in a temporary folder (`sqlite`, or no PostgreSQL given).
 * Its `url` names a database no other test uses.
 */
export async function startFerretDb(options: { postgresqlUrl?: string; sqlite?: boolean } = {}): Promise<StartedService> {
  const dir = mkdtempSync(join(tmpdir(), 'mcpflow-ferretdb-'));
  const port = await freePort();
  const postgresqlUrl = options.sqlite ? undefined : (options.postgresqlUrl ?? process.env.FERRETDB_POSTGRESQL_URL);
  const backend = postgresqlUrl
    ? ['--handler=postgresql', `--postgresql-url=${postgresqlUrl}`]
    : ['--handler=sqlite', `--sqlite-url=file:${dir}/`];
  const child = spawn(
    requiredEnv('FERRETDB_BIN'),
    [...backend, `--listen-addr=127.0.0.1:${port}`, `--state-dir=${dir}`, '--telemetry=disable', '--debug-addr=-', '--log-level=error'],
    { stdio: 'ignore' },
  );
  await waitForPort(port, child);
  // A database of its own: two throwaway FerretDBs on the test run's PostgreSQL share its schemas,
  // and a file that drops its database would drop another file's tables under it.
  return {
    url: `mongodb://127.0.0.1:${port}/t_${randomBytes(4).toString('hex')}`,
    port,
    stop: stopper(child, () => rmSync(dir, { recursive: true, force: true })),
  };
}

/** A throwaway Redis; pass `port` to bring one back where a stopped one was (clients reconnect). */
export async function startRedis(port?: number): Promise<StartedService> {
  port ??= await freePort();
  const child = spawn(
    requiredEnv('REDIS_SERVER_BIN'),
    ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    { stdio: 'ignore' },
  );
  await waitForPort(port, child);
  return { url: `redis://127.0.0.1:${port}`, port, stop: stopper(child, () => undefined) };
}
