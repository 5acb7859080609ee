import { describe, expect, it } from '@jest/globals';
import type { NodeDefinition, ToolCatalog, ToolDescriptor, WorkflowDefinition } from '#workflow';
import { REDACTED } from '#workflow';
import { createRedactor } from './redact-inputs.js';

const tool: ToolDescriptor = {
  toolsetId: 'ts',
  name: 'login',
  inputSchema: {
    type: 'object',
    properties: { user: { type: 'string' }, pin: { type: 'string', writeOnly: true }, pass: { type: 'string', format: 'password' } },
  },
  inputs: [],
  usable: true,
};
const catalog: ToolCatalog = { getTool: async (_set, name) => (name === 'login' ? tool : undefined), listTools: async () => [tool] };
const node = (id: string, config: Record<string, unknown> = {}): NodeDefinition => ({ id, type: 'mcpTool', config, inputs: {} });
const workflow: WorkflowDefinition = { name: 'w', nodes: [node('login', { toolsetId: 'ts', tool: 'login' }), node('other')], edges: [] };

describe('createRedactor', () => {
  it('masks inputs the tool schema marks secret, and credential-named keys at any depth', async () => {
    const redact = await createRedactor(workflow, catalog);
    const inputs = {
      user: 'ann',
      pin: '1234',
      pass: 'p',
      headers: { Authorization: 'Bearer x', accept: 'json' },
      list: [{ github_token: 't', maxTokens: 5 }],
    };
    expect(redact(inputs, workflow.nodes[0])).toEqual({
      user: 'ann',
      pin: REDACTED,
      pass: REDACTED,
      headers: { Authorization: REDACTED, accept: 'json' },
      list: [{ github_token: REDACTED, maxTokens: 5 }],
    });
    expect(inputs.pin).toBe('1234');
  });

  it('applies schema marks only to the node whose tool declares them', async () => {
    const redact = await createRedactor(workflow, catalog);
    expect(redact({ pin: '1234', apiKey: 'k' }, workflow.nodes[1])).toEqual({ pin: '1234', apiKey: REDACTED });
  });
});

describe('createRedactor in sub-graphs', () => {
  it("masks a map body node's secret inputs by its own tool's schema, even when a top-level node has the same id", async () => {
    const body = { nodes: [node('start'), node('other', { toolsetId: 'ts', tool: 'login' })], edges: [] };
    const nested: WorkflowDefinition = {
      name: 'w',
      nodes: [
        node('other'),
        { id: 'each', type: 'map', config: { body: { nodes: [{ ...node('inner'), config: { body } }], edges: [] } }, inputs: {} },
      ],
      edges: [],
    };
    const redact = await createRedactor(nested, catalog);
    expect(redact({ user: 'ann', pin: '1234' }, body.nodes[1])).toEqual({ user: 'ann', pin: REDACTED });
    expect(redact({ pin: '1234' }, nested.nodes[0])).toEqual({ pin: '1234' });
  });
});
