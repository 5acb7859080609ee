import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import mongoose from 'mongoose';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { LogItem, RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import {
  allLogs,
  bigTool,
  createWorkflow,
  expectNoSessions,
  flakyTool,
  loginTool,
  registerToolset,
  runToEnd,
  startRun,
  startRunStack,
  type Problem,
} from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

const OUTPUT_CAP = 2048;

describe('runs: branching, parallelism, errors, retries, logs', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let ts: string;

  const byNode = (items: LogItem[]) => Object.fromEntries(items.map((item) => [item.nodeId, item]));

  beforeAll(async () => {
    stack = await startRunStack({ NODE_OUTPUT_MAX_BYTES: String(OUTPUT_CAP) });
    fixture = await startFixtureServer({ tools: [...basicTools(), flakyTool(1), bigTool, loginTool] });
    ts = await registerToolset(stack.apiUrl, fixture.url);
  });
  afterEach(async () => {
    await expectNoSessions(fixture);
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it('takes one branch of a condition; the other is skipped and logged as such', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'branching',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'check',
          type: 'condition',
          config: { branches: [{ id: 'big', when: { all: [{ left: { ref: 'start.n' }, op: 'gt', right: { value: 10 } }] } }] },
        },
        { id: 'sum', type: 'mcpTool', config: { toolsetId: ts, tool: 'add' }, inputs: { a: { ref: 'start.n' }, b: { value: 1 } } },
        { id: 'endBig', type: 'end', inputs: { total: { ref: 'sum.result.sum' } } },
        { id: 'note', type: 'template', inputs: { text: { template: '{{start.n}} is small' } } },
        { id: 'endSmall', type: 'end', inputs: { note: { ref: 'note.text' } } },
      ],
      edges: [
        { source: 'start', target: 'check' },
        { source: 'check', sourceHandle: 'branch:big', target: 'sum' },
        { source: 'sum', target: 'endBig' },
        { source: 'check', sourceHandle: 'else', target: 'note' },
        { source: 'note', target: 'endSmall' },
      ],
    });
    const big = await runToEnd(stack.apiUrl, id, { n: 41 });
    expect(big).toMatchObject({ status: 'succeeded', outputs: { total: 42 }, error: null, stats: { nodesSkipped: 2, nodesFailed: 0 } });
    const logs = byNode(await allLogs(stack.apiUrl, big.id));
    expect(logs.check).toMatchObject({ status: 'succeeded', activeHandles: ['branch:big'] });
    expect(logs.sum).toMatchObject({
      status: 'succeeded',
      toolsetId: ts,
      tool: 'add',
      transport: 'streamable-http',
      sessionReused: false,
      isError: false,
    });
    expect(logs.note).toMatchObject({ status: 'skipped', attempt: 0 });
    expect(logs.endSmall).toMatchObject({ status: 'skipped' });

    const small = await runToEnd(stack.apiUrl, id, { n: 3 });
    expect(small).toMatchObject({ status: 'succeeded', outputs: { note: '3 is small' } });
    expect(byNode(await allLogs(stack.apiUrl, small.id))).toMatchObject({ sum: { status: 'skipped' }, endBig: { status: 'skipped' } });
  });

  it('runs independent branches concurrently: two slow tools take about the time of one, on one shared session', async () => {
    const slow = (id: string) => ({
      id,
      type: 'mcpTool',
      config: { toolsetId: ts, tool: 'slow' },
      inputs: { steps: { value: 4 }, stepMs: { value: 200 } },
    });
    const id = await createWorkflow(stack.apiUrl, {
      name: 'parallel',
      nodes: [
        { id: 'start', type: 'start' },
        slow('left'),
        slow('right'),
        { id: 'end', type: 'end', inputs: { l: { ref: 'left.text' }, r: { ref: 'right.text' } } },
      ],
      edges: [
        { source: 'start', target: 'left' },
        { source: 'start', target: 'right' },
        { source: 'left', target: 'end' },
        { source: 'right', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, id);
    expect(run.status).toBe('succeeded');
    const logs = byNode(await allLogs(stack.apiUrl, run.id));
    const spanMs = Date.parse(logs.end.startedAt) - Math.min(Date.parse(logs.left.startedAt), Date.parse(logs.right.startedAt));
    expect(logs.left.durationMs).toBeGreaterThanOrEqual(800);
    // In turn, the span would hold both calls whole; overlapping, it is about one of them.
    expect(spanMs).toBeLessThan(logs.left.durationMs + logs.right.durationMs);
    expect([logs.left.sessionReused, logs.right.sessionReused].sort()).toEqual([false, true]);
  });

  it('routes a caught failure to the error handle, with its code readable downstream', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'catch',
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'boom',
          type: 'mcpTool',
          catchError: true,
          config: { toolsetId: ts, tool: 'fail' },
          inputs: { reason: { value: 'disk full' } },
        },
        { id: 'happy', type: 'template', inputs: { text: { template: 'fine' } } },
        { id: 'handler', type: 'template', inputs: { text: { template: 'handled {{boom.error.code}}: {{boom.error.message}}' } } },
        { id: 'end', type: 'end', inputs: { report: { ref: 'handler.text' } } },
      ],
      edges: [
        { source: 'start', target: 'boom' },
        { source: 'boom', target: 'happy' },
        { source: 'boom', sourceHandle: 'error', target: 'handler' },
        { source: 'handler', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, id);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { report: 'handled MCP_TOOL_ERROR: disk full' } });
    const logs = byNode(await allLogs(stack.apiUrl, run.id));
    expect(logs.boom).toMatchObject({
      status: 'failed',
      activeHandles: ['error'],
      error: { code: 'MCP_TOOL_ERROR', message: 'disk full' },
      isError: true,
      tool: 'fail',
    });
    expect(logs.happy.status).toBe('skipped');
  });

  it('retries a node by its policy, then succeeds; the log shows the attempt', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'retry',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'flaky', type: 'mcpTool', retry: { maxAttempts: 3, backoffMs: 50 }, config: { toolsetId: ts, tool: 'flaky' }, inputs: {} },
        { id: 'end', type: 'end', inputs: { text: { ref: 'flaky.text' } } },
      ],
      edges: [
        { source: 'start', target: 'flaky' },
        { source: 'flaky', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, id);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { text: 'ok after 2 calls' } });
    expect(byNode(await allLogs(stack.apiUrl, run.id)).flaky).toMatchObject({ status: 'succeeded', attempt: 2 });
    expect(fixture.calls('flaky')).toBe(2);
  });

  it('fails the run with the failing node and its code when nothing catches the error', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'failing',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'boom', type: 'mcpTool', config: { toolsetId: ts, tool: 'fail' }, inputs: { reason: { value: 'no such order' } } },
        { id: 'after', type: 'template', inputs: { text: { template: 'never' } } },
        { id: 'end', type: 'end', inputs: { text: { ref: 'after.text' } } },
      ],
      edges: [
        { source: 'start', target: 'boom' },
        { source: 'boom', target: 'after' },
        { source: 'after', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, id);
    expect(run).toMatchObject({
      status: 'failed',
      error: { code: 'MCP_TOOL_ERROR', nodeId: 'boom', message: 'no such order' },
      stats: { nodesFailed: 1 },
    });
    expect(run.finishedAt).not.toBeNull();
    const logs = await allLogs(stack.apiUrl, run.id);
    expect(logs.map((item) => item.nodeId)).toEqual(['start', 'boom']);
    expect(logs[1]).toMatchObject({ status: 'failed', error: { code: 'MCP_TOOL_ERROR' } });
  });

  it('caps stored outputs with a flag while downstream nodes read the whole value; redacts secrets in logged inputs', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'cap',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'big', type: 'mcpTool', config: { toolsetId: ts, tool: 'big' }, inputs: { size: { value: OUTPUT_CAP * 4 } } },
        {
          id: 'login',
          type: 'mcpTool',
          config: { toolsetId: ts, tool: 'login' },
          inputs: { user: { value: 'ann' }, pin: { value: '4921' }, apiKey: { value: 'sk-live-123' } },
        },
        { id: 'size', type: 'template', inputs: { text: { template: '{{big.text}}' } } },
        { id: 'end', type: 'end', inputs: { greeting: { ref: 'login.text' } } },
      ],
      edges: [
        { source: 'start', target: 'big' },
        { source: 'big', target: 'login' },
        { source: 'big', target: 'size' },
        { source: 'login', target: 'end' },
        { source: 'size', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, id);
    expect(run).toMatchObject({ status: 'succeeded', outputs: { greeting: 'hello ann' } });
    const logs = byNode(await allLogs(stack.apiUrl, run.id));
    expect(logs.big.truncated).toBe(true);
    expect(JSON.stringify(logs.big.outputs).length).toBeLessThanOrEqual(OUTPUT_CAP * 1.2);
    // The template saw all of big.text: its own output is over the cap too.
    expect(logs.size.truncated).toBe(true);
    expect(logs.login.inputs).toEqual({ user: 'ann', pin: '***', apiKey: '***' });
    expect(logs.login.truncated).toBe(false);
    const raw = JSON.stringify(await allLogs(stack.apiUrl, run.id));
    expect(raw).not.toContain('4921');
    expect(raw).not.toContain('sk-live-123');
  });

  it('validates inputs against inputSchema (400 with paths), and applies the schema’s defaults', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'typed inputs',
      inputSchema: {
        type: 'object',
        properties: { n: { type: 'integer' }, label: { type: 'string', default: 'x' } },
        required: ['n'],
        additionalProperties: false,
      },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: { n: { ref: 'start.n' }, label: { ref: 'start.label' } } },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    const bad = await startRun(stack.apiUrl, id, { inputs: { n: 'seven', extra: true } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.map((error: Problem) => error.path).sort()).toEqual(['/inputs/extra', '/inputs/n']);
    const shape = await startRun(stack.apiUrl, id, { inputs: { n: 1 }, color: 'red' });
    expect(shape.status).toBe(400);
    expect(shape.body.errors).toEqual([expect.objectContaining({ path: '/color', code: 'UNKNOWN_FIELD' })]);
    expect((await startRun(stack.apiUrl, id, { inputs: { n: 1 }, version: 9 })).status).toBe(404);
    expect((await startRun(stack.apiUrl, '0123456789abcdef01234567', { inputs: {} })).status).toBe(404);
    const run = await runToEnd(stack.apiUrl, id, { n: 7 });
    expect(run).toMatchObject({ status: 'succeeded', inputs: { n: 7, label: 'x' }, outputs: { n: 7, label: 'x' } });
  });

  it('answers 202 queued at once, GET /runs/:id carries every SPEC field, and lists filter and page newest first', async () => {
    const id = await createWorkflow(stack.apiUrl, {
      name: 'listing',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [{ source: 'start', target: 'end' }],
    });
    const accepted = await startRun(stack.apiUrl, id, { inputs: { a: 1 } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      id: expect.any(String),
      workflowId: id,
      version: 1,
      status: 'queued',
      inputs: { a: 1 },
      outputs: null,
    });
    const first = await runToEnd(stack.apiUrl, id);
    const second = await runToEnd(stack.apiUrl, id);
    const run = (await api<RunView>(stack.apiUrl, 'GET', `/runs/${second.id}`)).body;
    for (const key of [
      'id',
      'workflowId',
      'version',
      'status',
      'inputs',
      'outputs',
      'error',
      'createdAt',
      'startedAt',
      'finishedAt',
      'durationMs',
      'stats',
    ])
      expect(run).toHaveProperty(key);
    expect(run.durationMs).toBeGreaterThanOrEqual(0);

    const page = await api<{ items: RunView[]; nextCursor: string }>(stack.apiUrl, 'GET', `/runs?workflowId=${id}&limit=2`);
    expect(page.body.items.map((item) => item.id)).toEqual([second.id, first.id]);
    const rest = await api<{ items: RunView[]; nextCursor: string | null }>(
      stack.apiUrl,
      'GET',
      `/runs?workflowId=${id}&limit=2&cursor=${page.body.nextCursor}`,
    );
    expect(rest.body).toEqual({ items: [expect.objectContaining({ id: accepted.body.id })], nextCursor: null });
    const succeeded = await api<{ items: RunView[] }>(stack.apiUrl, 'GET', `/runs?status=succeeded&workflowId=${id}`);
    expect(succeeded.body.items.every((item) => item.status === 'succeeded')).toBe(true);
    expect((await api(stack.apiUrl, 'GET', '/runs?status=sleeping')).status).toBe(400);
    expect((await api(stack.apiUrl, 'GET', '/runs/not-an-id')).status).toBe(404);
  });

  it('pages logs in execution order', async () => {
    const chain = Array.from({ length: 5 }, (_, index) => ({
      id: `t${index}`,
      type: 'template',
      inputs: { text: { template: `step ${index}` } },
    }));
    const id = await createWorkflow(stack.apiUrl, {
      name: 'chain',
      nodes: [{ id: 'start', type: 'start' }, ...chain, { id: 'end', type: 'end', inputs: {} }],
      edges: ['start', ...chain.map((node) => node.id), 'end']
        .slice(1)
        .map((target, index, targets) => ({ source: index === 0 ? 'start' : targets[index - 1], target })),
    });
    const run = await runToEnd(stack.apiUrl, id);
    const items = await allLogs(stack.apiUrl, run.id, 2);
    expect(items.map((item) => item.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(items.map((item) => item.nodeId)).toEqual(['start', 't0', 't1', 't2', 't3', 't4', 'end']);
    for (const item of items) {
      for (const key of [
        'seq',
        'nodeId',
        'type',
        'name',
        'status',
        'attempt',
        'startedAt',
        'finishedAt',
        'durationMs',
        'inputs',
        'outputs',
        'error',
      ])
        expect(item).toHaveProperty(key);
    }
    // Pure nodes only: no record was written on its own, all rode on the terminal write (the log
    // above pages across them); the indexes MongoDB serves the log, resume and the sweep from exist.
    const db = await mongoose.createConnection(stack.config.mongoUrl, { serverSelectionTimeoutMS: 3000 }).asPromise();
    try {
      const records = await db
        .collection('node_executions')
        // The run's journal markers (claim, end: seq < 0) stay as its fence; the node records (seq > 0) are compacted away.
        .find({ runId: new mongoose.Types.ObjectId(run.id), seq: { $gt: 0 } }, { projection: { _id: 1 } })
        .toArray();
      expect(records).toEqual([]);
      const stored = await db.collection('runs').findOne({ _id: new mongoose.Types.ObjectId(run.id) });
      expect((JSON.parse(String(stored?.finalExecutions)) as { seq: number }[]).map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      const keys = async (collection: string) => (await db.collection(collection).indexes()).map((index) => JSON.stringify(index.key));
      expect(await keys('node_executions')).toContain(JSON.stringify({ runId: 1, seq: 1 }));
      expect(await keys('runs')).toEqual(
        expect.arrayContaining(
          [
            { status: 1, checkedAt: 1 },
            { workflowId: 1, _id: -1 },
          ].map((key) => JSON.stringify(key)),
        ),
      );
      expect(await keys('run_mcp_sessions')).toContain(JSON.stringify({ runId: 1 }));
    } finally {
      await db.close();
    }
  });
});
