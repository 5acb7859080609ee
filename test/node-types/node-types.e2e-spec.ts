import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { compileSchema } from '#mcp';
import { as, createKey } from '../access/support.js';
import { anonymousFetch } from '../support/auth.js';
import { startStack, type TestStack } from '../support/stack.js';

interface NodeTypeItem {
  type: string;
  title: string;
  description: string;
  configSchema: Record<string, unknown> | boolean;
  handles: string[];
  inputs?: { key: string }[];
  outputs?: { key: string }[];
}

describe('GET /node-types', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
  }, 60_000);
  afterAll(() => stack.close());

  it('lists every registered type as it describes itself, to a read key', async () => {
    const reader = await createKey(stack.apiUrl, { name: 'reader', scopes: ['read'] });
    const res = await as(reader.key)<{ items: NodeTypeItem[] }>(stack.apiUrl, 'GET', '/node-types');
    expect(res.status).toBe(200);
    const byType = new Map(res.body.items.map((item) => [item.type, item]));
    for (const type of ['start', 'mcpTool', 'condition', 'template', 'llm', 'agent', 'end']) {
      const item = byType.get(type);
      expect(item?.title).toEqual(expect.any(String));
      expect(item?.description.length).toBeGreaterThan(10);
      expect(compileSchema(item?.configSchema ?? false).ok).toBe(true);
    }
    expect(byType.get('condition')?.handles).toEqual(['branch:<id>', 'else']);
    expect(byType.get('mcpTool')?.inputs).toBeUndefined();
    expect(byType.get('mcpTool')?.outputs?.map((field) => field.key)).toEqual(['result', 'text', 'content', 'isError']);
    expect(byType.get('template')?.inputs?.map((field) => field.key)).toEqual(['text']);
  });

  it('answers 401 without a key', async () => {
    const res = await anonymousFetch(`${stack.apiUrl}/node-types`, { method: 'GET' });
    expect(res.status).toBe(401);
  });
});
