import { NO_CONFIG_SCHEMA } from './config-schemas.js';
import type { NodeExecutor, TypedField } from '../engine/types.js';

const TEXT_FIELD: TypedField = { key: 'text', label: 'Text', valueType: 'string', required: true, schema: { type: 'string' } };

/** Renders `inputs.text` (usually `{template: "Hi {{start.name}}"}`; the engine renders it) as output `text`. */
export const templateNode: NodeExecutor = {
  type: 'template',
  pure: true,
  describeType: () => ({
    title: 'Template',
    description: 'Renders a text from earlier outputs: `{{node.key}}` placeholders in the `text` input.',
    configSchema: NO_CONFIG_SCHEMA,
    handles: ['out'],
    inputs: [TEXT_FIELD],
    outputs: [{ ...TEXT_FIELD, required: false }],
  }),
  describeInputs: async () => [TEXT_FIELD],
  describeOutputs: async () => [{ ...TEXT_FIELD, required: false }],
  execute: async ({ inputs }) => ({ outputs: { text: inputs.text } }),
};
