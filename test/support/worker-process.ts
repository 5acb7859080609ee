import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AppConfig } from '#workflow/nest';

/** The repository: the nearest folder up with a package.json (this file also runs from dist/, for the bench). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('no package.json above test/support');
    dir = parent;
  }
  return dir;
}

const ROOT = repositoryRoot();
export const DIST_ROOT = ROOT;
const WORKER_MAIN = join(ROOT, 'dist', 'apps', 'worker', 'src', 'main.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The worker runs from `dist/` as a real process. `scripts/dev.sh test` builds before the e2e
 * step; when run alone, a missing or stale build is made here.
 */
export function ensureWorkerBuilt(): void {
  const built = existsSync(WORKER_MAIN) ? statSync(WORKER_MAIN).mtimeMs : 0;
  if (built >= Math.max(newestSource(join(ROOT, 'apps')), newestSource(join(ROOT, 'libs')))) return;
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (result.status !== 0) throw new Error(`build failed (needed for the worker process):\n${result.stdout}${result.stderr}`);
}

export interface WorkerProcess {
  pid: number;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  output(): string;
  kill(signal: NodeJS.Signals): void;
}

/** The environment that gives a worker (or API) process the same configuration as `config`. */
export function envOf(config: AppConfig, overrides: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    MONGO_URL: config.mongoUrl,
    REDIS_URL: config.redisUrl,
    QUEUE_PREFIX: config.queuePrefix,
    ...(config.secrets.key && { SECRETS_KEY: config.secrets.key }),
    WORKER_CONCURRENCY: String(config.worker.concurrency),
    WORKER_SHUTDOWN_GRACE_MS: String(config.worker.shutdownGraceMs),
    WORKER_CLOSE_DEADLINE_MS: String(config.worker.closeDeadlineMs),
    WORKER_METRICS_PORT: String(config.workerMetrics.port),
    RUN_LOCK_DURATION_MS: String(config.recovery.lockDurationMs),
    RUN_STALLED_INTERVAL_MS: String(config.recovery.stalledIntervalMs),
    RUN_MAX_STALLED_COUNT: String(config.recovery.maxStalledCount),
    RUN_SWEEP_INTERVAL_MS: String(config.recovery.sweepIntervalMs),
    RUN_REQUEUE_AFTER_MS: String(config.recovery.requeueAfterMs),
    RUN_DEADLINE_MS: String(config.limits.runDeadlineMs),
    ...overrides,
  };
}

/** Starts `node dist/apps/worker/src/main.js` with the stack's configuration; resolves once it says it is ready. */
export async function spawnWorker(
  config: AppConfig,
  overrides: Record<string, string> = {},
  readyTimeoutMs = 20_000,
): Promise<WorkerProcess> {
  ensureWorkerBuilt();
  const child: ChildProcess = spawn(process.execPath, [WORKER_MAIN], {
    cwd: ROOT,
    env: envOf(config, overrides),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left behind: a worker that never became ready is the test's to stop.
      child.kill('SIGKILL');
      reject(new Error(`worker not ready within ${readyTimeoutMs} ms:\n${output}`));
    }, readyTimeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    pid: child.pid as number,
    exited,
    output: () => output,
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
