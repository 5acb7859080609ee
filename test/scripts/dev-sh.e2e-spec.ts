import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api } from '../support/http.js';
import { freePort } from '../support/services.js';
import { ensureWorkerBuilt } from '../support/worker-process.js';

/**
 * scripts/dev.sh as a user drives it, against the suite's FerretDB and Redis (MONGO_URL /
 * REDIS_URL), with its own data directory, API port and queue prefix: a killed worker is seen as
 * dead, and `up` starts only it.
 */
describe('scripts/dev.sh', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mcpflow-devsh-'));
  let env: NodeJS.ProcessEnv;
  let apiUrl: string;

  const devSh = (...args: string[]) => spawnSync('bash', ['scripts/dev.sh', ...args], { env, encoding: 'utf8', timeout: 120_000 });
  const pidOf = (name: string) => Number(readFileSync(join(dataDir, 'run', `${name}.pid`), 'utf8').trim());
  const state = (pid: number) => spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();

  beforeAll(async () => {
    ensureWorkerBuilt();
    const port = await freePort();
    apiUrl = `http://127.0.0.1:${port}`;
    env = {
      ...process.env,
      MCPFLOW_DATA_DIR: dataDir,
      MCPFLOW_SKIP_BUILD: '1',
      API_PORT: String(port),
      MCPFLOW_MONGO_PORT: String(await freePort()),
      MCPFLOW_REDIS_PORT: String(await freePort()),
      MCPFLOW_POSTGRES_PORT: String(await freePort()),
      QUEUE_PREFIX: `devsh-${process.pid}`,
      // The script knows the worker is up from its "worker ready" log line.
      LOG_LEVEL: 'info',
    };
  }, 300_000);
  afterAll(() => {
    devSh('down');
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('starts API and worker, then after a kill -9 of the worker sees it dead and starts only a new worker', async () => {
    const up = devSh('up');
    expect(up.status).toBe(0);
    expect((await api(apiUrl, 'GET', '/health/ready')).status).toBe(200);
    const [apiPid, oldWorker] = [pidOf('api'), pidOf('worker')];

    process.kill(oldWorker, 'SIGKILL');
    // Unreaped, the killed worker is a zombie here (its parent, dev.sh, has exited): kill -0 still answers for it.
    for (let i = 0; i < 50 && !['', 'Z'].includes(state(oldWorker).slice(0, 1)); i += 1) await new Promise((r) => setTimeout(r, 100));
    const status = devSh('status');
    expect(status.status).toBe(1);
    expect(status.stdout).toContain('worker: dead');

    const again = devSh('up');
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('starting worker');
    expect(again.stderr).not.toContain('starting api');
    const newWorker = pidOf('worker');
    expect(newWorker).not.toBe(oldWorker);
    expect(pidOf('api')).toBe(apiPid);
    expect(state(newWorker)).toMatch(/^[^Z]/);
    const after = devSh('status');
    expect(after.status).toBe(0);
    expect(after.stdout).toContain(`worker: running (pid ${newWorker})`);
  }, 240_000);

  it('answers "already running" when nothing is missing', () => {
    const up = devSh('up');
    expect(up.status).toBe(0);
    expect(up.stderr).toContain('already running');
  }, 60_000);

  it('counts a zombie as dead, though kill -0 accepts it', () => {
    // `sleep 0 &` ends at once; its parent exec's into a sleep that never reaps it: a zombie until the
    // holder is killed at the end (the holder's sleep outlasts a slow loop on a loaded machine: with
    // 5 s, the zombie was once reaped by init before kill -0 looked).
    const script = `
      source scripts/lib/processes.sh
      bash -c 'sleep 0 & echo $! > "$1"; exec sleep 60' _ "$DIR/zombie.pid" & holder=$!
      for _ in $(seq 1 100); do [ -s "$DIR/zombie.pid" ] && [[ $(ps -o stat= -p "$(cat "$DIR/zombie.pid")") == Z* ]] && break; sleep 0.1; done
      kill -0 "$(cat "$DIR/zombie.pid")" 2>/dev/null && echo "kill-0: alive"
      pid_alive "$DIR/zombie.pid" && echo "pid_alive: alive" || echo "pid_alive: dead"
      kill "$holder"`;
    const result = spawnSync('bash', ['-c', script], { env: { ...env, DIR: dataDir }, encoding: 'utf8', timeout: 30_000 });
    expect(result.stdout).toContain('kill-0: alive');
    expect(result.stdout).toContain('pid_alive: dead');
  }, 60_000);
});
