import { START_NODE_TYPE } from '../engine/graph.js';
import { NO_CONFIG_SCHEMA } from './config-schemas.js';
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
  describeType: () => ({
    title: 'Start',
    description: "The workflow's entry: publishes the run's inputs, one output per property of the workflow's inputSchema.",
    configSchema: NO_CONFIG_SCHEMA,
    handles: ['out'],
    inputs: [],
  }),
  describeOutputs: async ({ workflow }) => fieldsOfObjectSchema(workflow?.inputSchema),
  execute: async ({ runInputs = {} }) => ({ outputs: { ...runInputs } }),
};
