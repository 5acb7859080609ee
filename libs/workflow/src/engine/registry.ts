import type { NodeExecutor } from './types.js';

/** The node types a run or a validation knows; the engine knows nothing else about types. */
export interface NodeRegistry {
  /** Adds a node type; registering a type twice is a programming error and throws. */
  register(executor: NodeExecutor): NodeRegistry;
  get(type: string): NodeExecutor | undefined;
  types(): string[];
}

export function createNodeRegistry(executors: Iterable<NodeExecutor> = []): NodeRegistry {
  const byType = new Map<string, NodeExecutor>();
  const registry: NodeRegistry = {
    register(executor) {
      if (byType.has(executor.type)) throw new Error(`node type "${executor.type}" is already registered`);
      byType.set(executor.type, executor);
      return registry;
    },
    get: (type) => byType.get(type),
    types: () => [...byType.keys()],
  };
  for (const executor of executors) registry.register(executor);
  return registry;
}
