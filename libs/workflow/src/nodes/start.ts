import { START_NODE_TYPE } from '../engine/graph.js';
import type { NodeExecutor } from '../engine/types.js';
import { fieldsOfObjectSchema } from '../engine/value-types.js';

/**
 * The entry node: publishes the run's inputs as its outputs, one per property of the workflow's
 * `inputSchema` (any key when there is no schema). The API validates run inputs against the full
 * schema before queueing; downstream nodes type-check what they read from here at run time.
 */
export const startNode: NodeExecutor = {
  type: START_NODE_TYPE,
  pure: true,
  describeOutputs: async ({ workflow }) => fieldsOfObjectSchema(workflow?.inputSchema),
  execute: async ({ runInputs = {} }) => ({ outputs: { ...runInputs } }),
};
