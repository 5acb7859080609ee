import { describe, expect, it } from '@jest/globals';
import { createDefaultNodeRegistry } from '../nodes/built-in-nodes.js';
import {
  chain,
  createFakeToolbox,
  edge,
  endNodeDef,
  field,
  literal,
  ref,
  startNodeDef,
  template,
  toolNode,
} from './testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from './types.js';
import { validateWorkflow } from './validate-workflow.js';

const toolbox = createFakeToolbox({
  search: { inputs: [field('query', 'string', true), field('limit', 'integer')] },
  count: { inputs: [field('n', 'integer', true)] },
  broken: { usable: false },
});
const options = { registry: createDefaultNodeRegistry(), catalog: toolbox.catalog };

const templateNode = (id: string, text: string): NodeDefinition => ({ id, type: 'template', config: {}, inputs: { text: template(text) } });

function pairs(issues: { path: string; code: string }[]): string[] {
  return issues.map(({ path, code }) => `${code} ${path}`).sort();
}

describe('validateWorkflow', () => {
  it('accepts a sound workflow: typed start inputs, tool inputs, a template and an end', async () => {
    const workflow: WorkflowDefinition = {
      name: 'ok',
      inputSchema: { type: 'object', properties: { topic: { type: 'string' }, max: { type: 'integer' } }, required: ['topic'] },
      nodes: [
        startNodeDef(),
        toolNode('search', 'search', { query: ref('start.topic'), limit: ref('start.max') }),
        templateNode('say', 'Found {{search.result}} for {{start.topic}}'),
        endNodeDef({ answer: ref('say.text'), raw: ref('search.result.items[0]') }),
      ],
      edges: chain('start', 'search', 'say', 'end'),
    };
    await expect(validateWorkflow(workflow, options)).resolves.toEqual([]);
  });

  it('reports every problem at once, each with its path and code', async () => {
    const workflow: WorkflowDefinition = {
      name: 'broken',
      inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
      nodes: [
        startNodeDef(),
        startNodeDef('start2'),
        toolNode('a', 'search', { limit: literal('ten'), bogus: literal(1) }),
        templateNode('b', 'Hi {{c.text}}'),
        toolNode('c', 'missing'),
        { id: 'd', type: 'mcpTool', config: { toolsetId: 'nope', tool: 'x' }, inputs: {} },
        { id: 'e', type: 'mystery', config: {}, inputs: {} },
        templateNode('a', 'duplicate id'),
        { id: 'f', type: 'template', config: {}, inputs: { text: ref('a.nothing') } },
        toolNode('g', 'count', { n: ref('start.topic') }),
        toolNode('h', 'broken'),
        templateNode('x', 'loop'),
        templateNode('y', 'loop'),
        endNodeDef({ out: ref('ghost.value') }, 'z'),
      ],
      edges: [
        ...chain('start', 'a', 'b', 'c'),
        edge('start', 'ghost'),
        edge('a', 'f', 'branch:yes'),
        ...chain('start', 'x', 'y', 'x'),
        ...chain('f', 'g'),
        edge('start', 'd'),
        edge('start', 'h'),
        edge('start', 'z'),
        edge('start', 'e'),
        edge('a', 'g', 'error'),
      ],
    };
    const issues = await validateWorkflow(workflow, options);
    expect(issues.every((issue) => issue.message.length > 0)).toBe(true);
    expect(pairs(issues)).toEqual(
      [
        'MULTIPLE_START /nodes/1',
        'UNREACHABLE_NODE /nodes/1',
        'MISSING_REQUIRED_INPUT /nodes/2/inputs/query',
        'TYPE_MISMATCH /nodes/2/inputs/limit',
        'UNKNOWN_INPUT /nodes/2/inputs/bogus',
        'REF_NOT_UPSTREAM /nodes/3/inputs/text',
        'UNKNOWN_TOOL /nodes/4/config/tool',
        'UNKNOWN_TOOLSET /nodes/5/config/toolsetId',
        'UNKNOWN_NODE_TYPE /nodes/6/type',
        'DUPLICATE_NODE_ID /nodes/7/id',
        'REF_UNKNOWN_OUTPUT /nodes/8/inputs/text',
        'TYPE_MISMATCH /nodes/9/inputs/n',
        'TOOL_UNUSABLE /nodes/10/config/tool',
        'CYCLE /nodes/11',
        'REF_UNKNOWN_NODE /nodes/13/inputs/out',
        'DANGLING_EDGE /edges/3/target',
        'BAD_HANDLE /edges/4/sourceHandle',
        'BAD_HANDLE /edges/13/sourceHandle',
      ].sort(),
    );
  });

  it('reports a missing start, bad value sources and option errors', async () => {
    const workflow: WorkflowDefinition = {
      name: 'no start',
      nodes: [
        {
          ...templateNode('t', 'x'),
          inputs: { text: { value: 1, ref: 'a.b' } as never },
          retry: { maxAttempts: 0, backoffMs: 1 },
          timeoutMs: -1,
        },
      ],
      edges: [],
    };
    expect(pairs(await validateWorkflow(workflow, options))).toEqual(
      [
        'MISSING_START /nodes',
        'INVALID_VALUE_SOURCE /nodes/0/inputs/text',
        'INVALID_RETRY /nodes/0/retry',
        'INVALID_TIMEOUT /nodes/0/timeoutMs',
      ].sort(),
    );
  });

  it('checks condition branches: handles, operators and the references inside config', async () => {
    const condition: NodeDefinition = {
      id: 'check',
      type: 'condition',
      config: {
        branches: [
          {
            id: 'big',
            when: {
              all: [
                { left: ref('later.text'), op: 'gt', right: literal(3) },
                { left: ref('start.n'), op: 'near' },
              ],
            },
          },
        ],
      },
      inputs: {},
    };
    const workflow: WorkflowDefinition = {
      name: 'branching',
      nodes: [startNodeDef(), condition, templateNode('later', 'x'), templateNode('other', 'y')],
      edges: [
        edge('start', 'check'),
        edge('check', 'later', 'branch:big'),
        edge('check', 'other', 'branch:small'),
        edge('check', 'other', 'else'),
      ],
    };
    expect(pairs(await validateWorkflow(workflow, options))).toEqual(
      [
        'INVALID_CONFIG /nodes/1/config/branches/0/when/all/1/op',
        'REF_NOT_UPSTREAM /nodes/1/config/branches/0/when/all/0/left',
        'BAD_HANDLE /edges/2/sourceHandle',
      ].sort(),
    );
  });

  it('lets a caught error be referenced as <node>.error.code, and only when the node catches', async () => {
    const workflow: WorkflowDefinition = {
      name: 'catching',
      nodes: [
        startNodeDef(),
        toolNode('risky', 'count', { n: literal(1) }, { catchError: true }),
        templateNode('report', 'failed with {{risky.error.code}}: {{risky.error.message}}'),
        toolNode('plain', 'count', { n: literal(2) }),
        templateNode('wrong', '{{plain.error.code}} {{risky.error.stack}}'),
      ],
      edges: [
        edge('start', 'risky'),
        edge('risky', 'report', 'error'),
        edge('start', 'plain'),
        edge('plain', 'wrong'),
        edge('risky', 'wrong'),
      ],
    };
    const issues = await validateWorkflow(workflow, options);
    expect(pairs(issues)).toEqual(['REF_UNKNOWN_OUTPUT /nodes/4/inputs/text', 'REF_UNKNOWN_OUTPUT /nodes/4/inputs/text']);
  });
});
