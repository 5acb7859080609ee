import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, trickySchemaTools, type FixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, type Problem } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { startRunStack } from '../support/runs.js';

interface WorkflowView {
  id: string;
  version: number;
  name: string;
  description: string | null;
  inputSchema: Record<string, unknown> | null;
  nodes: { id: string }[];
  edges: unknown[];
  createdAt: string;
  updatedAt: string;
}

describe('workflows: versions, reads, soft delete, validation', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let tricky: FixtureServer;
  let toolsetId: string;
  let trickyToolsetId: string;

  const echoFlow = (name: string, message: unknown = { ref: 'start.text' }) => ({
    name,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message } },
      { id: 'end', type: 'end', inputs: { said: { ref: 'echo.result' } } },
    ],
    edges: [
      { source: 'start', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  });

  beforeAll(async () => {
    stack = await startRunStack({}, { worker: false });
    fixture = await startFixtureServer({ tools: basicTools() });
    toolsetId = await registerToolset(stack.apiUrl, fixture.url);
    tricky = await startFixtureServer({ tools: trickySchemaTools(), name: 'tricky' });
    trickyToolsetId = await registerToolset(stack.apiUrl, tricky.url, 'tricky');
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
    await tricky.close();
  });

  it('creates version 1, and every PUT adds an immutable version', async () => {
    const id = await createWorkflow(stack.apiUrl, echoFlow('greeter'));
    const put = await api<WorkflowView>(stack.apiUrl, 'PUT', `/workflows/${id}`, { ...echoFlow('greeter v2'), description: 'second' });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, version: 2, name: 'greeter v2', description: 'second' });

    const latest = await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${id}`);
    expect(latest.body).toMatchObject({ id, version: 2, name: 'greeter v2' });
    const first = await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${id}/versions/1`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id, version: 1, name: 'greeter', description: null });
    expect(first.body.nodes.map((node) => node.id)).toEqual(['start', 'echo', 'end']);

    const versions = await api<{ items: { version: number }[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      `/workflows/${id}/versions?limit=1`,
    );
    expect(versions.body.items.map((item) => item.version)).toEqual([2]);
    const older = await api<{ items: { version: number }[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      `/workflows/${id}/versions?limit=1&cursor=${versions.body.nextCursor}`,
    );
    expect(older.body).toEqual({ items: [expect.objectContaining({ version: 1 })], nextCursor: null });
    expect((await api(stack.apiUrl, 'GET', `/workflows/${id}/versions/3`)).status).toBe(404);
  });

  it('keeps versions apart when PUTs race: each gets its own number', async () => {
    const id = await createWorkflow(stack.apiUrl, echoFlow('racer'));
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => api<WorkflowView>(stack.apiUrl, 'PUT', `/workflows/${id}`, echoFlow(`racer ${n}`))),
    );
    expect(results.map((res) => res.status)).toEqual([200, 200, 200, 200]);
    expect(results.map((res) => res.body.version).sort()).toEqual([2, 3, 4, 5]);
    expect((await api<WorkflowView>(stack.apiUrl, 'GET', `/workflows/${id}`)).body.version).toBe(5);
  });

  it('lists newest first with a cursor, and hides soft-deleted workflows', async () => {
    const a = await createWorkflow(stack.apiUrl, echoFlow('list a'));
    const b = await createWorkflow(stack.apiUrl, echoFlow('list b'));
    const page = await api<{ items: { id: string; name: string; latestVersion: number }[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      '/workflows?limit=2',
    );
    expect(page.body.items.map((item) => item.id)).toEqual([b, a]);
    expect(page.body.items[0]).toMatchObject({ name: 'list b', latestVersion: 1 });
    expect(page.body.nextCursor).toEqual(a);

    expect((await api(stack.apiUrl, 'DELETE', `/workflows/${b}`)).status).toBe(204);
    expect((await api(stack.apiUrl, 'GET', `/workflows/${b}`)).status).toBe(404);
    expect((await api(stack.apiUrl, 'PUT', `/workflows/${b}`, echoFlow('again'))).status).toBe(404);
    expect((await api(stack.apiUrl, 'DELETE', `/workflows/${b}`)).status).toBe(404);
    const after = await api<{ items: { id: string }[] }>(stack.apiUrl, 'GET', '/workflows?limit=200');
    expect(after.body.items.map((item) => item.id)).not.toContain(b);
    expect((await api(stack.apiUrl, 'POST', `/workflows/${b}/runs`, { inputs: { text: 'x' } })).status).toBe(404);
  });

  it('answers 400 WORKFLOW_INVALID with every problem, each with a path and a code', async () => {
    const res = await api<{ code: string; errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', {
      name: 'broken',
      inputSchema: { type: 'object', properties: { n: { type: 'integer' } } },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'dup', type: 'template', inputs: { text: { template: 'a' } } },
        { id: 'dup', type: 'template', inputs: { text: { template: 'b' } } },
        { id: 'mystery', type: 'teleport' },
        { id: 'noInput', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: {} },
        { id: 'badRef', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'later.text' } } },
        { id: 'badType', type: 'mcpTool', config: { toolsetId, tool: 'add' }, inputs: { a: { ref: 'start.n' }, b: { ref: 'dup.text' } } },
        { id: 'later', type: 'template', inputs: { text: { template: 'x' } } },
        { id: 'ghostTool', type: 'mcpTool', config: { toolsetId, tool: 'nope' }, inputs: {} },
        { id: 'ghostSet', type: 'mcpTool', config: { toolsetId: '0123456789abcdef01234567', tool: 'echo' }, inputs: {} },
        { id: 'loopA', type: 'template', inputs: { text: { template: 'a' } } },
        { id: 'loopB', type: 'template', inputs: { text: { template: 'b' } } },
        { id: 'island', type: 'template', inputs: { text: { template: 'alone' } } },
        { id: 'unusable', type: 'mcpTool', config: { toolsetId: trickyToolsetId, tool: 'remote_ref' }, inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'dup' },
        { source: 'start', target: 'noInput' },
        { source: 'start', target: 'badRef' },
        { source: 'badRef', target: 'later' },
        { source: 'dup', target: 'badType' },
        { source: 'start', target: 'ghostTool' },
        { source: 'start', target: 'ghostSet' },
        { source: 'start', target: 'nowhere' },
        { source: 'start', target: 'loopA' },
        { source: 'loopA', target: 'loopB' },
        { source: 'loopB', target: 'loopA' },
        { source: 'start', target: 'unusable' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WORKFLOW_INVALID');
    const found = res.body.errors.map((error) => `${error.code} ${error.path}`);
    expect(found).toEqual(
      expect.arrayContaining([
        'DUPLICATE_NODE_ID /nodes/2/id',
        'UNKNOWN_NODE_TYPE /nodes/3/type',
        'MISSING_REQUIRED_INPUT /nodes/4/inputs/message',
        'REF_NOT_UPSTREAM /nodes/5/inputs/message',
        'TYPE_MISMATCH /nodes/6/inputs/b',
        'UNKNOWN_TOOL /nodes/8/config/tool',
        'UNKNOWN_TOOLSET /nodes/9/config/toolsetId',
        'DANGLING_EDGE /edges/7/target',
        'UNREACHABLE_NODE /nodes/12',
        'TOOL_UNUSABLE /nodes/13/config/tool',
      ]),
    );
    expect(res.body.errors.some((error) => error.code === 'CYCLE')).toBe(true);
    for (const error of res.body.errors) expect(error.message).toEqual(expect.any(String));
  });

  it('rejects unknown fields and a malformed shape with exact paths', async () => {
    const res = await api<{ code: string; errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', {
      name: '',
      color: 'blue',
      nodes: [{ id: 'start', type: 'start', weight: 3 }],
      edges: 'none',
    });
    expect(res.status).toBe(400);
    const found = res.body.errors.map((error) => `${error.code} ${error.path}`);
    expect(found).toEqual(
      expect.arrayContaining(['UNKNOWN_FIELD /color', 'UNKNOWN_FIELD /nodes/0/weight', 'INVALID_TYPE /edges', 'TOO_SMALL /name']),
    );
  });

  it('refuses an input schema that does not compile', async () => {
    const res = await api<{ errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows', {
      ...echoFlow('bad schema'),
      inputSchema: { type: 'object', properties: { text: { type: 'strin' } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: '/inputSchema', code: 'INVALID_INPUT_SCHEMA' })]),
    );
  });

  it('POST /workflows/validate answers {valid, errors} without saving anything', async () => {
    const good = await api<{ valid: boolean; errors: Problem[] }>(stack.apiUrl, 'POST', '/workflows/validate', echoFlow('dry run'));
    expect(good.status).toBe(200);
    expect(good.body).toEqual({ valid: true, errors: [] });
    const bad = await api<{ valid: boolean; errors: Problem[] }>(
      stack.apiUrl,
      'POST',
      '/workflows/validate',
      echoFlow('dry run', { ref: 'ghost.text' }),
    );
    expect(bad.status).toBe(200);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: '/nodes/1/inputs/message', code: 'REF_UNKNOWN_NODE' })]);
    const listed = await api<{ items: { name: string }[] }>(stack.apiUrl, 'GET', '/workflows?limit=200');
    expect(listed.body.items.map((item) => item.name)).not.toContain('dry run');
  });

  it('keeps a toolset its latest version uses from being deleted (409), until the workflow moves off it or is deleted', async () => {
    const other = await startFixtureServer({ tools: basicTools(), name: 'other' });
    try {
      const otherId = await registerToolset(stack.apiUrl, other.url, 'other');
      const flow = (set: string) => ({
        ...echoFlow('uses other'),
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'echo', type: 'mcpTool', config: { toolsetId: set, tool: 'echo' }, inputs: { message: { ref: 'start.text' } } },
          { id: 'end', type: 'end', inputs: {} },
        ],
      });
      const id = await createWorkflow(stack.apiUrl, flow(otherId));
      expect((await api(stack.apiUrl, 'DELETE', `/toolsets/${otherId}`)).status).toBe(409);
      expect((await api(stack.apiUrl, 'PUT', `/workflows/${id}`, flow(toolsetId))).status).toBe(200);
      const used = await createWorkflow(stack.apiUrl, flow(otherId));
      expect((await api(stack.apiUrl, 'DELETE', `/toolsets/${otherId}`)).status).toBe(409);
      expect((await api(stack.apiUrl, 'DELETE', `/workflows/${used}`)).status).toBe(204);
      expect((await api(stack.apiUrl, 'DELETE', `/toolsets/${otherId}`)).status).toBe(204);
    } finally {
      await other.close();
    }
  });

  it('keeps odd JSON intact: $-keys, dotted keys and nested arrays in schemas and literals', async () => {
    const odd = { 'a.b': 1, $c: [[1, 2], [3]] };
    const id = await createWorkflow(stack.apiUrl, {
      ...echoFlow('odd'),
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { text: { type: 'string', examples: [['x']] } },
      },
      nodes: [
        ...echoFlow('odd').nodes.slice(0, 2),
        { id: 'end', type: 'end', inputs: { said: { ref: 'echo.result' }, odd: { value: odd } } },
      ],
    });
    const view = await api<WorkflowView & { nodes: { inputs?: Record<string, unknown> }[] }>(stack.apiUrl, 'GET', `/workflows/${id}`);
    expect(view.body.inputSchema).toMatchObject({ $schema: expect.any(String), properties: { text: { examples: [['x']] } } });
    expect(view.body.nodes[2].inputs?.odd).toEqual({ value: odd });
  });
});
