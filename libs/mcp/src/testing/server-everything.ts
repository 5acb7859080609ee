/**
 * `@modelcontextprotocol/server-everything` as a real test peer, in a child process.
 * It listens on all interfaces and reports no port, so a preloaded module makes a host-less
 * listen() bind 127.0.0.1 and prints the bound port (PORT=0 picks a free one). The preload is an
 * `--import` of a data: URL rather than a `--require` file: it works the same from sources (Jest)
 * and from dist/, with no file to ship.
 *
 *   const everything = await startServerEverything('streamableHttp'); // url: …/mcp; 'sse': …/sse
 *   …
 *   await everything.close();
 *
 * `scripts/server-everything.mjs` runs it the same way for the docs' walkthroughs.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { McpStdioTarget } from '../types.js';

export type ServerEverythingMode = 'streamableHttp' | 'sse';

export interface ServerEverything {
  url: string;
  close(): Promise<void>;
}

const READY_MARKER = 'mcpflow-listening';
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

const LOOPBACK_PRELOAD = `
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  const numeric = typeof first === 'number' || (typeof first === 'string' && /^\\d+$/.test(first));
  if (numeric && typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  else if (first && typeof first === 'object' && first.host === undefined && first.path === undefined) args[0] = { ...first, host: '127.0.0.1' };
  this.once('listening', () => process.stderr.write('${READY_MARKER} ' + this.address().port + '\\n'));
  return listen.apply(this, args);
};`;

function entryPoint(): string {
  return createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
}

/** A stdio target that spawns server-everything (no network involved). */
export function serverEverythingStdioTarget(): McpStdioTarget {
  return { kind: 'stdio', command: process.execPath, args: [entryPoint(), 'stdio'] };
}

/** `port` 0 (the default) picks a free one; `url` names the one bound. */
export function startServerEverything(mode: ServerEverythingMode, port = 0): Promise<ServerEverything> {
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(LOOPBACK_PRELOAD)}`, entryPoint(), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    let output = '';
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void close().then(() => reject(new Error(`server-everything (${mode}) ${why}: ${output.slice(-1_000)}`)));
    };
    const timer = setTimeout(() => fail(`did not listen within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    // Keep reading stderr for the child's whole life: a full pipe would block it.
    child.stderr.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
      const port = new RegExp(`${READY_MARKER} (\\d+)`).exec(output)?.[1];
      if (port && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`, close });
      }
    });
    child.once('exit', (code) => fail(`exited with ${code}`));
  });
}
