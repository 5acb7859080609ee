import { describe, expect, it } from '@jest/globals';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import {
  chain,
  createFakeToolbox,
  endNodeDef,
  fakeServices,
  literal,
  ref,
  startNodeDef,
  template,
} from '../engine/testing/fake-services.js';
import type { NodeDefinition, WorkflowDefinition } from '../engine/types.js';
import { validateWorkflow } from '../engine/validate-workflow.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { parsePickPath, readPick } from './set/pick-path.js';

const registry = createDefaultNodeRegistry();
const toolbox = createFakeToolbox({});

const setNodeDef = (config: Record<string, unknown>, id = 'shape'): NodeDefinition => ({ id, type: 'set', config, inputs: {} });

function workflowWith(node: NodeDefinition): WorkflowDefinition {
  return {
    name: 'shape',
    nodes: [startNodeDef(), node, endNodeDef({ result: ref(`${node.id}.result`) })],
    edges: chain('start', node.id, 'end'),
  };
}

async function run(node: NodeDefinition, inputs: Record<string, unknown>) {
  const workflow = workflowWith(node);
  return runWorkflow({
    runId: `run-${Math.random()}`,
    workflow,
    inputs,
    registry,
    services: fakeServices(toolbox),
    store: createInMemoryRunStore(),
  });
}

const order = {
  id: 7,
  customer: { name: 'Ada', email: 'ada@example.com' },
  items: [
    { sku: 'a', qty: 1, tags: ['x'] },
    { sku: 'b', qty: 2, tags: ['y', 'z'] },
  ],
};

describe('set node', () => {
  it('builds nested fields from references, templates, literals and picks', async () => {
    const outcome = await run(
      setNodeDef({
        fields: [
          { key: 'to', source: ref('start.order.customer.email') },
          { key: 'subject', source: template('Order {{start.order.id}} for {{start.order.customer.name}}') },
          { key: 'meta.priority', source: literal('high') },
          { key: 'meta.skus', source: ref('start.order'), pick: 'items[*].sku' },
          { key: 'tags', source: ref('start.order.items'), pick: '$[*].tags[*]' },
          { key: 'last', source: ref('start.order.items'), pick: '[-1].qty' },
          { key: 'missing', source: ref('start.order.nothing') },
        ],
      }),
      { order },
    );
    expect(outcome.status).toBe('succeeded');
    expect(outcome.outputs.result).toEqual({
      to: 'ada@example.com',
      subject: 'Order 7 for Ada',
      meta: { priority: 'high', skus: ['a', 'b'] },
      tags: [['x'], ['y', 'z']],
      last: 2,
    });
  });

  it('edits a copy of a base object and leaves the upstream value untouched', async () => {
    const outcome = await run(
      setNodeDef({
        base: ref('start.order.customer'),
        fields: [
          { key: 'name', source: literal('Grace') },
          { key: 'address.city', source: literal('Paris') },
        ],
      }),
      { order },
    );
    expect(outcome.outputs.result).toEqual({ name: 'Grace', email: 'ada@example.com', address: { city: 'Paris' } });
    expect(order.customer).toEqual({ name: 'Ada', email: 'ada@example.com' });
  });

  it('refuses bad configs at save time, each with its path', async () => {
    const node = setNodeDef({
      fields: [
        { key: 'a', source: ref('start.x') },
        { key: 'a.b', source: literal(1) },
        { key: '__proto__.polluted', source: literal(true) },
        { key: 'ok', source: { nope: 1 } },
        { key: 'p', source: literal([]), pick: 'items[x]' },
        { key: 'q', source: ref('ghost.out'), color: 'red' },
      ],
      mode: 'merge',
    });
    const issues = await validateWorkflow(workflowWith(node), { registry, catalog: toolbox.catalog });
    const paths = issues.map((issue) => `${issue.code} ${issue.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'INVALID_CONFIG /nodes/1/config/mode',
        'INVALID_CONFIG /nodes/1/config/fields/1/key',
        'INVALID_CONFIG /nodes/1/config/fields/2/key',
        'INVALID_CONFIG /nodes/1/config/fields/3/source',
        'INVALID_CONFIG /nodes/1/config/fields/4/pick',
        'INVALID_CONFIG /nodes/1/config/fields/5/color',
      ]),
    );
    expect(issues.some((issue) => issue.path === '/nodes/1/config/fields/5/source' && issue.code !== 'INVALID_CONFIG')).toBe(true);
    expect(await validateWorkflow(workflowWith(setNodeDef({ fields: [] })), { registry, catalog: toolbox.catalog })).toEqual([
      expect.objectContaining({ path: '/nodes/1/config/fields', code: 'INVALID_CONFIG' }),
    ]);
  });

  it('describes itself for GET /node-types', () => {
    const description = registry.get('set')?.describeType?.();
    expect(description).toMatchObject({ title: 'Set fields', handles: ['out'], outputs: [expect.objectContaining({ key: 'result' })] });
    expect(description?.configSchema).toMatchObject({ required: ['fields'] });
  });
});

describe('pick paths', () => {
  it('reads names, indexes from both ends and every element', () => {
    const path = (text: string) => {
      const parsed = parsePickPath(text);
      if ('error' in parsed) throw new Error(parsed.error);
      return parsed.segments;
    };
    expect(readPick(order, path('customer.name'))).toBe('Ada');
    expect(readPick(order, path('$.items[0].sku'))).toBe('a');
    expect(readPick(order, path('items[-1].sku'))).toBe('b');
    expect(readPick(order, path('items.*.qty'))).toEqual([1, 2]);
    expect(readPick(order, path('items[*].nothing'))).toEqual([]);
    expect(readPick(order, path('customer[*]'))).toBeUndefined();
    expect(readPick(order, path('constructor'))).toBeUndefined();
    expect(parsePickPath('items..sku')).toHaveProperty('error');
    expect(parsePickPath('items[')).toHaveProperty('error');
  });
});
