import { pathToFileURL } from 'node:url';
import {
  builtInNodeExecutors,
  createInMemoryRunStore,
  createNodeRegistry,
  runWorkflow,
  startNode,
  systemClock,
  type EngineServices,
  type NodeDefinition,
  type NodeExecutor,
  type WorkflowDefinition,
} from '#workflow';

/**
 * Engine overhead: a chain of no-op nodes run entirely in memory (in-memory RunStore, no I/O),
 * so the time measured is the engine's own: scheduling, input resolution, record building and
 * persistence calls, events. Each no-op reads its predecessor's output through a reference.
 */
export interface EngineOverheadOptions {
  /** Nodes in the chain, the start node included. */
  nodes: number;
  /** Measured runs, after warm-up runs that let the JIT settle; the median is reported. */
  rounds?: number;
}

export interface EngineTiming {
  totalMs: number;
  /** Wall clock, median run. */
  perNodeMicros: number;
  /** CPU time of this process (user + system), median run: steadier than wall clock on a shared machine. */
  cpuMicrosPerNode: number;
}

/** `perNodeMicros`/`totalMs`: the pure no-op's (the honest declaration of a node with no side effect). */
export interface EngineOverhead extends EngineTiming {
  nodes: number;
  /** The same chain with the no-op declared impure: each record is awaited by the store before the next node. */
  durable: EngineTiming;
}

/**
 * A `map` over `items` whose body is `start → noop → end` (three nodes), concurrency 1 (every item
 * after the other: what is measured is work, not overlap). Its overhead per item on top of its
 * body: the per-item time minus the floor, the same body's nodes run without a map — flat chains
 * of (pure pass-through, durable no-op, pure pass-through) per item, the pure nodes standing for
 * the body's `start` and `end`, in runs of FLOOR_CHUNK items (a chain of thousands of nodes would
 * charge the floor with per-node costs that grow with the graph; one run per item, with a run's
 * own costs) —, the two run in alternation in the same process.
 * Goal (issue 24): at most 20 µs per item.
 */
export interface MapOverhead {
  items: number;
  /** CPU per item, median run: the body's three nodes and the map's own work for the item. */
  cpuMicrosPerItem: number;
  /** The floor: CPU per three nodes of the flat chain (median run), measured alternately with the map. */
  bodyCpuMicros: number;
  /** What the map adds per item: `cpuMicrosPerItem - bodyCpuMicros`. */
  overheadCpuMicrosPerItem: number;
  wallMicrosPerItem: number;
}

/** A no-op has no side effect (`pure`); the impure variant makes the engine await each record's save. */
const noopNode = (pure: boolean): NodeExecutor => ({
  type: 'noop',
  pure,
  execute: async ({ inputs }) => ({ outputs: { value: inputs.value } }),
});

/** A pure pass-through: stands for a body's `start` and `end` in the floor (their records are deferred too). */
const passNode: NodeExecutor = { type: 'pass', pure: true, execute: async ({ inputs }) => ({ outputs: { value: inputs.value } }) };

const unusedPorts: EngineServices = {
  tools: { callTool: () => Promise.reject(new Error('the engine benchmark calls no tool')) },
  catalog: { getTool: async () => undefined, listTools: async () => undefined },
  clock: systemClock,
};

function chainOf(nodes: number): WorkflowDefinition {
  const definitions: NodeDefinition[] = [{ id: 'n0', type: 'start', config: {}, inputs: {} }];
  for (let index = 1; index < nodes; index += 1) {
    definitions.push({ id: `n${index}`, type: 'noop', config: {}, inputs: { value: { ref: `n${index - 1}.value` } } });
  }
  const edges = definitions.slice(1).map((node, index) => ({ source: definitions[index].id, target: node.id }));
  return { name: `chain of ${nodes}`, nodes: definitions, edges };
}

/** Items per run of the floor: a run's own costs spread over 150 nodes, a graph as small as a workflow's. */
const FLOOR_CHUNK = 50;

/** The floor of `mapOver`: its body's nodes, `items` times in one chain, with no map. */
function bodiesFlat(items: number): WorkflowDefinition {
  const definitions: NodeDefinition[] = [{ id: 'n0', type: 'start', config: {}, inputs: {} }];
  for (let index = 1; index <= items * 3; index += 1) {
    const type = index % 3 === 2 ? 'noop' : 'pass';
    definitions.push({ id: `n${index}`, type, config: {}, inputs: { value: { ref: `n${index - 1}.value` } } });
  }
  const edges = definitions.slice(1).map((node, index) => ({ source: definitions[index].id, target: node.id }));
  return { name: `${items} bodies flat`, nodes: definitions, edges };
}

function mapOver(items: number): { workflow: WorkflowDefinition; inputs: Record<string, unknown> } {
  const body = {
    nodes: [
      { id: 'start', type: 'start', config: {}, inputs: {} },
      { id: 'step', type: 'noop', config: {}, inputs: { value: { ref: 'start.item' } } },
      { id: 'end', type: 'end', config: {}, inputs: { value: { ref: 'step.value' } } },
    ],
    edges: [
      { source: 'start', target: 'step' },
      { source: 'step', target: 'end' },
    ],
  };
  const workflow: WorkflowDefinition = {
    name: `map over ${items}`,
    nodes: [
      { id: 'start', type: 'start', config: {}, inputs: {} },
      { id: 'each', type: 'map', config: { body, concurrency: 1 }, inputs: { items: { ref: 'start.items' } } },
      { id: 'end', type: 'end', config: {}, inputs: { results: { ref: 'each.results' } } },
    ],
    edges: [
      { source: 'start', target: 'each' },
      { source: 'each', target: 'end' },
    ],
  };
  return { workflow, inputs: { items: Array.from({ length: items }, (_, index) => index) } };
}

async function timeOneRun(
  workflow: WorkflowDefinition,
  runId: string,
  pure: boolean,
  inputs: Record<string, unknown> = { value: 1 },
  maxNodeExecutions = workflow.nodes.length,
): Promise<{ wall: number; cpu: number }> {
  const types = builtInNodeExecutors.filter((type) => type.type === 'map' || type.type === 'end');
  const registry = createNodeRegistry([startNode, noopNode(pure), passNode, ...types]);
  const cpuBefore = process.cpuUsage();
  const began = performance.now();
  const outcome = await runWorkflow({
    runId,
    workflow,
    inputs,
    registry,
    services: unusedPorts,
    store: createInMemoryRunStore(),
    limits: { maxNodeExecutions },
  });
  const wall = performance.now() - began;
  const cpu = process.cpuUsage(cpuBefore);
  if (outcome.status !== 'succeeded') throw new Error(`benchmark run ${outcome.status}: ${outcome.error?.code} ${outcome.error?.message}`);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timeChain(workflow: WorkflowDefinition, pure: boolean, rounds: number): Promise<EngineTiming> {
  for (let warmUp = 0; warmUp < 3; warmUp += 1) await timeOneRun(workflow, `warm-up-${warmUp}`, pure);
  const runs: { wall: number; cpu: number }[] = [];
  for (let round = 0; round < rounds; round += 1) runs.push(await timeOneRun(workflow, `round-${round}`, pure));
  const nodes = workflow.nodes.length;
  const totalMs = median(runs.map((run) => run.wall));
  return {
    totalMs: Number(totalMs.toFixed(2)),
    perNodeMicros: Number(((totalMs * 1000) / nodes).toFixed(1)),
    cpuMicrosPerNode: Number(((median(runs.map((run) => run.cpu)) * 1000) / nodes).toFixed(1)),
  };
}

export async function measureEngineOverhead({ nodes, rounds = 15 }: EngineOverheadOptions): Promise<EngineOverhead> {
  const workflow = chainOf(nodes);
  // Both once first, so that neither is measured with the JIT colder than the other.
  await timeChain(workflow, true, 3);
  await timeChain(workflow, false, 3);
  const pure = await timeChain(workflow, true, rounds);
  return { nodes, ...pure, durable: await timeChain(workflow, false, rounds) };
}

export async function measureMapOverhead(items: number, rounds = 15): Promise<MapOverhead> {
  const { workflow, inputs } = mapOver(items);
  const flat = bodiesFlat(FLOOR_CHUNK);
  const executions = 3 + items * 3;
  const timeMap = (runId: string) => timeOneRun(workflow, runId, false, inputs, executions);
  const timeFloor = async (runId: string): Promise<{ cpu: number }> => {
    let cpu = 0;
    for (let chunk = 0; chunk * FLOOR_CHUNK < items; chunk += 1) cpu += (await timeOneRun(flat, `${runId}-${chunk}`, false)).cpu;
    return { cpu: (cpu * items) / (Math.ceil(items / FLOOR_CHUNK) * FLOOR_CHUNK) };
  };
  for (let warmUp = 0; warmUp < 3; warmUp += 1) {
    await timeFloor(`floor-warm-up-${warmUp}`);
    await timeMap(`map-warm-up-${warmUp}`);
  }
  // In alternation, so that a change of the machine's load touches both alike.
  const runs: { wall: number; cpu: number }[] = [];
  const floors: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    floors.push((await timeFloor(`floor-${round}`)).cpu);
    runs.push(await timeMap(`map-${round}`));
  }
  const cpuMicrosPerItem = (median(runs.map((run) => run.cpu)) * 1000) / items;
  const bodyCpuMicros = (median(floors) * 1000) / items;
  return {
    items,
    cpuMicrosPerItem: Number(cpuMicrosPerItem.toFixed(1)),
    bodyCpuMicros: Number(bodyCpuMicros.toFixed(1)),
    overheadCpuMicrosPerItem: Number((cpuMicrosPerItem - bodyCpuMicros).toFixed(1)),
    wallMicrosPerItem: Number(((median(runs.map((run) => run.wall)) * 1000) / items).toFixed(1)),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1000);
  const result = await measureEngineOverhead({ nodes });
  const { durable } = result;
  console.log(
    `engine overhead, ${result.nodes} no-op nodes (median of 15 runs): ${result.perNodeMicros} µs/node wall, ${result.cpuMicrosPerNode} µs/node CPU` +
      ` · declared impure (each record awaited): ${durable.perNodeMicros} µs/node wall, ${durable.cpuMicrosPerNode} µs/node CPU`,
  );
  const map = await measureMapOverhead(Number(process.argv[3] ?? 500));
  console.log(
    `map over ${map.items} items, body start → noop → end, concurrency 1 (median of 15 runs): ${map.cpuMicrosPerItem} µs/item CPU, ` +
      `the same nodes flat without a map ${map.bodyCpuMicros} µs (median of 15 runs in alternation): the map adds ${map.overheadCpuMicrosPerItem} µs/item (goal ≤ 20)`,
  );
  console.log(JSON.stringify({ ...result, map }));
}
