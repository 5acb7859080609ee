import { describe, expect, it } from '@jest/globals';
import { nodeReferencesOf, referencesOf, toolsetsToConnectAhead } from '../engine/node-references.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { llmNodeExecutors } from './llm-nodes.js';

const registry = createDefaultNodeRegistry();
for (const executor of llmNodeExecutors) registry.register(executor);

const node = (id: string, type: string, config: Record<string, unknown> = {}): NodeDefinition => ({ id, type, config, inputs: {} });

function workflow(edges: WorkflowDefinition['edges'], toolsets: Record<string, string>): WorkflowDefinition {
  const tools = Object.entries(toolsets).map(([id, toolsetId]) => node(id, 'mcpTool', { toolsetId, tool: 'echo' }));
  return { name: 'w', nodes: [node('start', 'start'), ...tools, node('if', 'condition')], edges };
}

describe('toolsetsToConnectAhead', () => {
  it('follows default edges from start only: no branch, no error handle', () => {
    const definition = workflow(
      [
        { source: 'start', target: 'a' },
        { source: 'a', target: 'if' },
        { source: 'if', sourceHandle: 'branch:x', target: 'b' },
        { source: 'a', sourceHandle: 'error', target: 'c' },
        { source: 'start', target: 'd' },
        { source: 'start', target: 'missing' },
      ],
      { a: 'ts-1', b: 'ts-2', c: 'ts-3', d: 'ts-1' },
    );
    expect(toolsetsToConnectAhead(registry, definition)).toEqual(['ts-1']);
  });
});

describe('node references', () => {
  const nodes = [
    node('start', 'start'),
    node('tool', 'mcpTool', { toolsetId: 'ts-1', tool: 'echo' }),
    node('ask', 'llm', { providerId: 'p-1', model: 'm' }),
    node('helper', 'agent', {
      providerId: 'p-2',
      model: 'm',
      toolsets: [{ toolsetId: 'ts-2' }, { toolsetId: 'ts-1', tools: ['echo'] }, null],
    }),
    // Only the node types that declare references count: a stray id in another type's config is not one.
    node('text', 'template', { toolsetId: 'ts-9', providerId: 'p-9' }),
  ];

  it('collects the toolsets and providers each node type declares, once each', () => {
    expect(referencesOf(registry, nodes)).toEqual({ toolsetIds: ['ts-1', 'ts-2'], providerIds: ['p-1', 'p-2'], workflowIds: [] });
  });

  it('gives each reference its JSON pointer in the definition', () => {
    expect(nodeReferencesOf(registry, nodes)).toEqual([
      { kind: 'toolset', id: 'ts-1', path: '/nodes/1/config/toolsetId' },
      { kind: 'provider', id: 'p-1', path: '/nodes/2/config/providerId' },
      { kind: 'provider', id: 'p-2', path: '/nodes/3/config/providerId' },
      { kind: 'toolset', id: 'ts-2', path: '/nodes/3/config/toolsets/0/toolsetId' },
      { kind: 'toolset', id: 'ts-1', path: '/nodes/3/config/toolsets/1/toolsetId' },
    ]);
  });

  it("counts what a map's body nodes reference, nested maps too, with pointers into the body", () => {
    const inner = { nodes: [node('start', 'start'), node('call', 'workflow', { workflowId: 'w-1' })], edges: [] };
    const body = {
      nodes: [node('start', 'start'), node('tool', 'mcpTool', { toolsetId: 'ts-3', tool: 'echo' }), node('deeper', 'map', { body: inner })],
      edges: [],
    };
    expect(nodeReferencesOf(registry, [node('start', 'start'), node('each', 'map', { body })])).toEqual([
      { kind: 'toolset', id: 'ts-3', path: '/nodes/1/config/body/nodes/1/config/toolsetId' },
      {
        kind: 'workflow',
        id: 'w-1',
        path: '/nodes/1/config/body/nodes/2/config/body/nodes/1/config/workflowId',
        versionPath: '/config/body/nodes/2/config/body/nodes/1/config/version',
      },
    ]);
  });
});
