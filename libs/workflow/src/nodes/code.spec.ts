import { afterAll, describe, expect, it } from '@jest/globals';
import { EngineError } from '../engine/errors.js';
import { createInMemoryRunStore } from '../engine/run-store.js';
import { runWorkflow } from '../engine/run-workflow.js';
import { chain, createFakeToolbox, endNodeDef, fakeServices, ref, startNodeDef } from '../engine/testing/fake-services.js';
import type { NodeDefinition, NodeExecutionContext, WorkflowDefinition } from '../engine/types.js';
import { validateWorkflow } from '../engine/validate-workflow.js';
import { createDefaultNodeRegistry } from './built-in-nodes.js';
import { codeNode } from './code.js';
import { sharedSandboxPool } from './code/sandbox-pool.js';

const registry = createDefaultNodeRegistry();
const toolbox = createFakeToolbox({});

afterAll(() => sharedSandboxPool().close());

const codeNodeDef = (config: Record<string, unknown>, id = 'js'): NodeDefinition => ({
  id,
  type: 'code',
  config,
  inputs: { order: ref('start.order') },
});

async function execute(config: Record<string, unknown>, inputs: Record<string, unknown> = {}): Promise<unknown> {
  const context = { node: codeNodeDef(config), inputs, signal: new AbortController().signal } as unknown as NodeExecutionContext;
  const { outputs } = await codeNode.execute(context);
  return outputs.result;
}

async function failure(config: Record<string, unknown>, inputs: Record<string, unknown> = {}): Promise<EngineError> {
  try {
    await execute(config, inputs);
  } catch (thrown) {
    if (thrown instanceof EngineError) return thrown;
    throw thrown;
  }
  throw new Error('the code was expected to fail');
}

function workflowWith(node: NodeDefinition): WorkflowDefinition {
  return {
    name: 'code',
    nodes: [startNodeDef(), node, endNodeDef({ result: ref(`${node.id}.result`) })],
    edges: chain('start', node.id, 'end'),
  };
}

function run(node: NodeDefinition, inputs: Record<string, unknown>) {
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

describe('code node', () => {
  it('turns inputs into result inside a workflow, awaiting what the code awaits', async () => {
    const node = codeNodeDef({
      code: 'const total = inputs.order.items.reduce((sum, item) => sum + item.qty, 0);\nreturn await Promise.resolve({ total, skus: inputs.order.items.map((item) => item.sku) });',
    });
    const outcome = await run(node, {
      order: {
        items: [
          { sku: 'a', qty: 1 },
          { sku: 'b', qty: 2 },
        ],
      },
    });
    expect(outcome).toMatchObject({ status: 'succeeded', outputs: { result: { total: 3, skus: ['a', 'b'] } } });
    expect(await execute({ code: 'inputs.x;' }, { x: 1 })).toBeNull();
  });

  it("reports the user's line and column for runtime and syntax errors", async () => {
    const thrown = await failure({ code: 'const a = 1;\nconst b = null;\nreturn b.x;' });
    expect(thrown).toMatchObject({ code: 'CODE_ERROR', details: { line: 3, column: 9 } });
    expect(thrown.message).toMatch(/TypeError: .*line 3, column 9/);
    expect(await failure({ code: 'return (1 +;' })).toMatchObject({ code: 'CODE_ERROR', details: { line: 1 } });
    expect(await failure({ code: 'throw new RangeError("too far")' })).toMatchObject({
      code: 'CODE_ERROR',
      message: expect.stringContaining('RangeError: too far'),
    });
  });

  it('checks the result against outputSchema, which also types the output', async () => {
    const config = {
      code: 'return { n: inputs.n }',
      outputSchema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
    };
    expect(await execute(config, { n: 2 })).toEqual({ n: 2 });
    expect(await failure(config, { n: 'two' })).toMatchObject({
      code: 'CODE_OUTPUT_INVALID',
      message: expect.stringContaining('does not match outputSchema'),
    });
    const outputs = await codeNode.describeOutputs?.({ node: codeNodeDef(config), nodePath: '/nodes/1', catalog: toolbox.catalog });
    expect(outputs).toEqual([expect.objectContaining({ key: 'result', valueType: 'object', schema: config.outputSchema })]);
  });

  it('refuses bad configs at save time with their paths', async () => {
    const node = codeNodeDef({ code: '', timeoutMs: 0, memoryMb: 4096, outputSchema: { type: 'nonsense' }, language: 'python' });
    const issues = await validateWorkflow(workflowWith(node), { registry, catalog: toolbox.catalog });
    expect(issues.map((issue) => `${issue.code} ${issue.path}`).sort()).toEqual([
      'INVALID_CONFIG /nodes/1/config/code',
      'INVALID_CONFIG /nodes/1/config/language',
      'INVALID_CONFIG /nodes/1/config/memoryMb',
      'INVALID_CONFIG /nodes/1/config/outputSchema',
      'INVALID_CONFIG /nodes/1/config/timeoutMs',
    ]);
  });
});

describe('code node sandbox: escapes tried and refused', () => {
  it('reaches no process through the Function constructor', async () => {
    expect(await failure({ code: "return this.constructor.constructor('return process')()" })).toMatchObject({ code: 'CODE_ERROR' });
    const viaGlobal = await failure({ code: "return globalThis.constructor.constructor('return process')()" });
    expect(viaGlobal.message).toMatch(/ReferenceError: .*process.* is not defined/);
    expect(await execute({ code: "return Function('return typeof process + typeof require + typeof fetch + typeof setTimeout')()" })).toBe(
      'undefinedundefinedundefinedundefined',
    );
  });

  it('ends while(true){} with CODE_TIMEOUT while the worker keeps serving another run', async () => {
    let loopSettled = false;
    const loop = run(codeNodeDef({ code: 'while (true) {}', timeoutMs: 1_500 }, 'spin'), { order: {} }).finally(() => (loopSettled = true));
    const other = await run(codeNodeDef({ code: 'return inputs.order.n + 1' }), { order: { n: 41 } });
    expect(other).toMatchObject({ status: 'succeeded', outputs: { result: 42 } });
    expect(loopSettled).toBe(false);
    expect(await loop).toMatchObject({ status: 'failed', error: { code: 'CODE_TIMEOUT' } });
  });

  it('stops a 1 GB allocation with CODE_MEMORY_LIMIT', async () => {
    expect(await failure({ code: 'const big = new ArrayBuffer(1024 * 1024 * 1024); return big.byteLength' })).toMatchObject({
      code: 'CODE_MEMORY_LIMIT',
    });
    expect(await failure({ code: "return 'x'.repeat(2 ** 29).length" })).toMatchObject({ code: 'CODE_MEMORY_LIMIT' });
    expect(await execute({ code: 'return 1' })).toBe(1);
  });

  it('has no require and no module loader', async () => {
    expect((await failure({ code: "return require('fs')" })).message).toMatch(/ReferenceError: .*require.* is not defined/);
    expect(await failure({ code: "const fs = await import('fs'); return Object.keys(fs)" })).toMatchObject({ code: 'CODE_ERROR' });
    expect(await failure({ code: "import fs from 'fs'; return 1" })).toMatchObject({ code: 'CODE_ERROR' });
  });

  it('cannot pollute the host through returned objects or its own prototypes', async () => {
    const result = await execute({
      code: 'Object.prototype.polluted = \'inside\';\nconst evil = JSON.parse(\'{"__proto__": {"polluted": "host"}, "a": 1}\');\nreturn { evil, nested: [evil] };',
    });
    expect(result).toEqual({ evil: { a: 1 }, nested: [{ a: 1 }] });
    const evil = (result as { evil: Record<string, unknown> }).evil;
    expect(Object.hasOwn(evil, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(evil)).toBe(Object.prototype);
    expect(Object.assign({}, evil)).toEqual({ a: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await execute({ code: 'return ({}).polluted ?? null' })).toBeNull();
  });
});
