import { Worker } from 'node:worker_threads';
import { SandboxPool } from '../libs/workflow/src/nodes/code/sandbox-pool.js';
import { runInSandbox } from '../libs/workflow/src/nodes/code/quickjs-sandbox.js';

/**
 * Cost of one `code` node call, a small transform (sum and pick over 20 items), measured as:
 * cold (a new pool: thread start + WASM load + first call), warm in the thread pool (what a run
 * pays), and warm in-process (QuickJS alone). Floors in the same run: the same transform as
 * plain JavaScript in this process with its JSON round trip, and one empty message round trip
 * to a worker thread (the hop the pool cannot avoid).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const CODE = 'return { total: inputs.items.reduce((sum, item) => sum + item.qty, 0), skus: inputs.items.map((item) => item.sku) };';
const INPUTS = { items: Array.from({ length: 20 }, (_, index) => ({ sku: `sku-${index}`, qty: index })) };
const task = { code: CODE, inputsJson: JSON.stringify(INPUTS), timeoutMs: 1_000, memoryMb: 32 };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeEach(rounds: number, call: () => Promise<unknown> | unknown): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

function plainTransform(): unknown {
  const inputs = JSON.parse(task.inputsJson) as typeof INPUTS;
  const result = { total: inputs.items.reduce((sum, item) => sum + item.qty, 0), skus: inputs.items.map((item) => item.sku) };
  return JSON.parse(JSON.stringify(result));
}

async function threadHopFloor(): Promise<number> {
  const worker = new Worker(
    "require('node:worker_threads').parentPort.on('message', (m) => require('node:worker_threads').parentPort.postMessage(m))",
    { eval: true },
  );
  const hop = () => new Promise((resolve) => (worker.once('message', resolve), worker.postMessage({ id: 1, task })));
  await timeEach(50, hop);
  const result = await timeEach(ROUNDS, hop);
  await worker.terminate();
  return result;
}

async function main(): Promise<void> {
  const plainMs = await timeEach(ROUNDS, plainTransform);
  const hopMs = await threadHopFloor();

  const coldPool = new SandboxPool(1);
  const coldStarted = performance.now();
  const first = await coldPool.run(task);
  const coldMs = performance.now() - coldStarted;
  if (!first.ok) throw new Error(`the bench transform failed: ${first.message}`);
  await timeEach(50, () => coldPool.run(task));
  const pooledMs = await timeEach(ROUNDS, () => coldPool.run(task));
  await coldPool.close();

  await runInSandbox(task);
  const inProcessMs = await timeEach(ROUNDS, () => runInSandbox(task));

  const line = (name: string, ms: number, floor?: number): string =>
    `${name.padEnd(34)} ${ms.toFixed(3).padStart(9)} ms${floor === undefined ? '' : `  (${(ms / floor).toFixed(1)}× the floor)`}`;
  console.log(`code node, small transform, median of ${ROUNDS} calls`);
  console.log(line('floor: plain JS + JSON round trip', plainMs));
  console.log(line('floor: worker-thread message hop', hopMs));
  console.log(line('cold: new pool, first call', coldMs, hopMs));
  console.log(line('warm: pool call (what a run pays)', pooledMs, hopMs));
  console.log(line('warm: QuickJS in-process', inProcessMs, plainMs));
  console.log(`goal warm ≤ 1 ms: ${pooledMs <= 1 ? 'met' : 'missed'} (${pooledMs.toFixed(3)} ms)`);
}

void main();
