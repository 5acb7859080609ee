import { pathToFileURL } from 'node:url';
import {
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

export interface EngineOverhead {
  nodes: number;
  totalMs: number;
  perNodeMicros: number;
}

const noopNode: NodeExecutor = { type: 'noop', execute: async ({ inputs }) => ({ outputs: { value: inputs.value } }) };

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

async function timeOneRun(workflow: WorkflowDefinition, runId: string): Promise<number> {
  const registry = createNodeRegistry([startNode, noopNode]);
  const began = performance.now();
  const outcome = await runWorkflow({
    runId,
    workflow,
    inputs: { value: 1 },
    registry,
    services: unusedPorts,
    store: createInMemoryRunStore(),
    limits: { maxNodeExecutions: workflow.nodes.length },
  });
  const elapsed = performance.now() - began;
  if (outcome.status !== 'succeeded') throw new Error(`benchmark run ${outcome.status}: ${outcome.error?.code} ${outcome.error?.message}`);
  return elapsed;
}

export async function measureEngineOverhead({ nodes, rounds = 5 }: EngineOverheadOptions): Promise<EngineOverhead> {
  const workflow = chainOf(nodes);
  for (let warmUp = 0; warmUp < 3; warmUp += 1) await timeOneRun(workflow, `warm-up-${warmUp}`);
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) times.push(await timeOneRun(workflow, `round-${round}`));
  const totalMs = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  return { nodes, totalMs: Number(totalMs.toFixed(2)), perNodeMicros: Number(((totalMs * 1000) / nodes).toFixed(1)) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const nodes = Number(process.argv[2] ?? 1000);
  const result = await measureEngineOverhead({ nodes });
  console.log(`engine overhead: ${result.nodes} no-op nodes in ${result.totalMs} ms = ${result.perNodeMicros} µs/node`);
  console.log(JSON.stringify(result));
}
