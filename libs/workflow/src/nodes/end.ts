import { END_NODE_TYPE } from '../engine/graph.js';
import { NO_CONFIG_SCHEMA } from './config-schemas.js';
import type { NodeExecutor, TypedField } from '../engine/types.js';

/** The exit node: its inputs, free-form, become the run's outputs. */
export const endNode: NodeExecutor = {
  type: END_NODE_TYPE,
  pure: true,
  describeType: () => ({
    title: 'End',
    description: "The workflow's exit: its inputs (any keys, any values) become the run's outputs.",
    configSchema: NO_CONFIG_SCHEMA,
    handles: [],
    outputs: [],
  }),
  describeOutputs: async ({ node }) =>
    Object.keys(node.inputs ?? {}).map((key): TypedField => ({ key, label: key, valueType: 'any', required: false, schema: true })),
  execute: async ({ inputs }) => ({ outputs: { ...inputs } }),
};
