/**
 * A bounded pool of worker threads that run `code` nodes, so that a long or endless script
 * (`while (true) {}`) burns a sandbox thread, never the event loop that serves other runs.
 * QuickJS's interrupt deadline ends such a script; a watchdog past the deadline ends the thread
 * itself should the engine not come back. Threads are unref'd: they never keep a process alive.
 */
import { Worker } from 'node:worker_threads';
import { CODE_ERROR_CODES, type SandboxOutcome, type SandboxTask } from './code-errors.js';

/** Time given to a thread past the task's own deadline before it is terminated. */
const WATCHDOG_GRACE_MS = 2_000;

interface Job {
  id: number;
  task: SandboxTask;
  signal?: AbortSignal;
  resolve(outcome: SandboxOutcome): void;
  reject(reason: unknown): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  watchdog?: NodeJS.Timeout;
  onAbort?: () => void;
}

/**
 * The compiled thread entry. Under ts-jest this module is TypeScript source; the thread then
 * runs the build's JavaScript (`scripts/dev.sh test` builds first).
 */
function threadEntry(): URL {
  const here = new URL(import.meta.url);
  if (!here.pathname.endsWith('.ts')) return new URL('./sandbox-thread.js', here);
  const compiled = here.pathname
    .replace(/\/libs\/workflow\/src\//, '/dist/libs/workflow/src/')
    .replace(/sandbox-pool\.ts$/, 'sandbox-thread.js');
  return new URL(`file://${compiled}`);
}

export class SandboxPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;

  constructor(private readonly size: number) {}

  run(task: SandboxTask, signal?: AbortSignal): Promise<SandboxOutcome> {
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, signal, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends every thread; queued tasks are refused. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new Error('the sandbox pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((candidate) => !candidate.job) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const job = this.queue.shift() as Job;
      if (job.signal?.aborted) {
        job.reject(job.signal.reason);
        continue;
      }
      this.start(slot, job);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(threadEntry());
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', ({ id, outcome }: { id: number; outcome: SandboxOutcome }) => {
      if (slot.job?.id === id) this.finish(slot, () => slot.job?.resolve(outcome));
    });
    worker.on('error', (error) => this.replace(slot, (job) => job.reject(error)));
    worker.on('exit', () => this.replace(slot, (job) => job.reject(new Error('a sandbox thread exited'))));
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.watchdog = setTimeout(
      () =>
        this.replace(slot, (stuck) =>
          stuck.resolve({ ok: false, code: CODE_ERROR_CODES.timeout, message: 'the code ran past its time limit and was stopped' }),
        ),
      job.task.timeoutMs + WATCHDOG_GRACE_MS,
    );
    slot.watchdog.unref();
    slot.onAbort = () => this.replace(slot, (canceled) => canceled.reject(job.signal?.reason));
    job.signal?.addEventListener('abort', slot.onAbort, { once: true });
    slot.worker.postMessage({ id: job.id, task: job.task });
  }

  private finish(slot: Slot, settle: () => void): void {
    settle();
    clearTimeout(slot.watchdog);
    if (slot.onAbort) slot.job?.signal?.removeEventListener('abort', slot.onAbort);
    slot.job = undefined;
    this.dispatch();
  }

  /** Settles the slot's job, drops the thread (terminating it) and lets the queue move on. */
  private replace(slot: Slot, settle: (job: Job) => void): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    const job = slot.job;
    if (job) this.finish(slot, () => settle(job));
    void slot.worker.terminate();
  }
}

let shared: SandboxPool | undefined;
/** Threads for `code` nodes in one process: machines here have two cores. */
const DEFAULT_THREADS = 2;

export function sharedSandboxPool(): SandboxPool {
  shared ??= new SandboxPool(DEFAULT_THREADS);
  return shared;
}
