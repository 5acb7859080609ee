import { END_NODE_TYPE } from '../engine/graph.js';
import type { NodeExecutor, TypedField } from '../engine/types.js';

/** The exit node: its inputs, free-form, become the run's outputs. */
export const endNode: NodeExecutor = {
  type: END_NODE_TYPE,
  pure: true,
  describeOutputs: async ({ node }) =>
    Object.keys(node.inputs ?? {}).map((key): TypedField => ({ key, label: key, valueType: 'any', required: false, schema: true })),
  execute: async ({ inputs }) => ({ outputs: { ...inputs } }),
};
