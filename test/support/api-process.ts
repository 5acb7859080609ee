import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { AppConfig } from '#workflow/nest';
import { anonymousFetch } from './auth.js';
import { freePort } from './services.js';
import { DIST_ROOT, ensureWorkerBuilt, envOf } from './worker-process.js';

/** A second API as a real process (`node dist/apps/api/src/main.js`) over the same database and Redis. */
export interface ApiProcess {
  url: string;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

export async function spawnApi(config: AppConfig, overrides: Record<string, string> = {}, readyTimeoutMs = 20_000): Promise<ApiProcess> {
  ensureWorkerBuilt();
  const port = await freePort();
  const env = {
    ...envOf(config, {}),
    API_HOST: '127.0.0.1',
    API_PORT: String(port),
    LOG_LEVEL: 'warn',
    CACHE_MAX_AGE_MS: String(config.cacheMaxAgeMs),
    RATE_LIMIT_PER_MINUTE: String(config.auth.rateLimitPerMinute),
    AUTH_FAILURES_PER_MINUTE: String(config.auth.failuresPerMinute),
    AUTH_FAILURE_BLOCK_SECONDS: String(config.auth.failureBlockSeconds),
    ...overrides,
  };
  const child = spawn(process.execPath, [join(DIST_ROOT, 'dist', 'apps', 'api', 'src', 'main.js')], {
    cwd: DIST_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API process exited (${child.exitCode}):\n${output}`);
    const ready = await anonymousFetch(`${url}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      // Not left behind: a process that never became ready is the test's to stop.
      child.kill('SIGKILL');
      await exited;
      throw new Error(`API process not ready within ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    pid: child.pid as number,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
