/**
 * Runs a `code` node's JavaScript in QuickJS compiled to WebAssembly (`quickjs-emscripten`): a
 * separate JS engine with its own heap, so the code sees no `require`, `process`, file system,
 * network or timers: only the ECMAScript built-ins and `inputs`. Each call gets a fresh runtime
 * with a memory limit and an interrupt deadline (CPU time); the WASM module is loaded once per
 * thread (the cold cost).
 */
import {
  getQuickJS,
  shouldInterruptAfterDeadline,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';
import { CODE_ERROR_CODES, type SandboxOutcome, type SandboxTask } from './code-errors.js';

const FILE_NAME = 'code.js';
/**
 * The user's code becomes the body of an async function on the wrapper's first line, so that
 * `return` gives the result, `await` works, and line numbers stay the user's (columns of line 1
 * are shifted back by the prefix). The result leaves the sandbox as JSON text only.
 */
const PREFIX = '"use strict";(async function (inputs) {';
const SUFFIX = '\n}).call(undefined, JSON.parse(globalThis.__inputs)).then((value) => JSON.stringify(value === undefined ? null : value))';
const STACK_SIZE_BYTES = 512 * 1024;

let quickJs: Promise<QuickJSWASMModule> | undefined;

/** Loads the WASM module once (about 100 ms cold); later calls reuse it. */
export function loadQuickJs(): Promise<QuickJSWASMModule> {
  quickJs ??= getQuickJS();
  return quickJs;
}

interface DumpedError {
  name?: string;
  message?: string;
  stack?: string;
  lineNumber?: number;
}

function failure(context: QuickJSContext, handle: QuickJSHandle): SandboxOutcome {
  const dumped = context.dump(handle) as DumpedError | string;
  const error: DumpedError = typeof dumped === 'object' && dumped !== null ? dumped : { message: String(dumped) };
  const message = `${error.name ?? 'Error'}: ${error.message ?? String(dumped)}`;
  if (error.name === 'InternalError' && error.message === 'interrupted') {
    return { ok: false, code: CODE_ERROR_CODES.timeout, message: 'the code ran past its time limit and was stopped' };
  }
  if (error.name === 'InternalError' && error.message === 'out of memory') {
    return { ok: false, code: CODE_ERROR_CODES.memoryLimit, message: 'the code ran out of its memory limit' };
  }
  const position = new RegExp(`${FILE_NAME}:(\\d+):(\\d+)`).exec(error.stack ?? '');
  if (!position) return { ok: false, code: CODE_ERROR_CODES.failed, message };
  const line = Number(position[1]);
  const column = line === 1 ? Math.max(1, Number(position[2]) - PREFIX.length) : Number(position[2]);
  return { ok: false, code: CODE_ERROR_CODES.failed, message: `${message} (line ${line}, column ${column})`, line, column };
}

function settle(context: QuickJSContext, promise: QuickJSHandle): SandboxOutcome {
  const state = context.getPromiseState(promise);
  if (state.type === 'pending') {
    return { ok: false, code: CODE_ERROR_CODES.failed, message: 'the returned promise never settled (the sandbox has no timers or I/O)' };
  }
  if (state.type === 'rejected') {
    const outcome = failure(context, state.error);
    state.error.dispose();
    return outcome;
  }
  const json = context.dump(state.value) as unknown;
  state.value.dispose();
  return typeof json === 'string'
    ? { ok: true, resultJson: json }
    : { ok: false, code: CODE_ERROR_CODES.failed, message: 'the result is not JSON' };
}

export async function runInSandbox(task: SandboxTask): Promise<SandboxOutcome> {
  const module = await loadQuickJs();
  const runtime = module.newRuntime();
  try {
    runtime.setMemoryLimit(task.memoryMb * 1024 * 1024);
    runtime.setMaxStackSize(STACK_SIZE_BYTES);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + task.timeoutMs));
    const context = runtime.newContext();
    try {
      context.newString(task.inputsJson).consume((inputs) => context.setProp(context.global, '__inputs', inputs));
      const evaluated = context.evalCode(`${PREFIX}${task.code}${SUFFIX}`, FILE_NAME);
      if (evaluated.error) return evaluated.error.consume((error) => failure(context, error));
      return evaluated.value.consume((promise) => {
        const jobs = runtime.executePendingJobs();
        if (jobs.error) return jobs.error.consume((error) => failure(context, error));
        return settle(context, promise);
      });
    } finally {
      context.dispose();
    }
  } catch (thrown) {
    // The WASM engine itself gave up (e.g. its own allocation failed under the limit).
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    const code = /memory/i.test(message) ? CODE_ERROR_CODES.memoryLimit : CODE_ERROR_CODES.failed;
    return { ok: false, code, message: `the sandbox failed: ${message}` };
  } finally {
    runtime.dispose();
  }
}
