import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { childPidsMatching, serverEverythingStdioTarget, waitUntil } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, runToEnd, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { rawDatabaseDump } from '../support/toolsets.js';

interface StdioToolset {
  id: string;
  kind: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  transport: string;
  requestedTransport: string;
  tools: { name: string }[];
}
interface ErrorBody {
  code: string;
  errors: { path: string; code: string }[];
}

const everything = serverEverythingStdioTarget();
const filesystemEntry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

describe('stdio toolsets: the operator gate', () => {
  let off: TestStack;
  let listed: TestStack;

  beforeAll(async () => {
    [off, listed] = await Promise.all([
      startRunStack({}, { worker: false }),
      startRunStack({ STDIO_TOOLSETS: 'on', STDIO_COMMANDS: 'uvx,/usr/local/bin/some-server' }, { worker: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([off?.close(), listed?.close()]);
  });

  it('refuses a stdio toolset with 403 STDIO_DISABLED while stdio is off, and saves nothing', async () => {
    for (const path of ['/toolsets', '/toolsets/preview']) {
      const res = await api<ErrorBody>(off.apiUrl, 'POST', path, { command: everything.command, args: everything.args });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'STDIO_DISABLED', errors: [{ path: '/command', code: 'STDIO_DISABLED' }] });
    }
    expect((await api<{ items: unknown[] }>(off.apiUrl, 'GET', '/toolsets')).body.items).toEqual([]);
  });

  it('refuses a command that is not written exactly as the allow-list has it (403 STDIO_COMMAND_NOT_ALLOWED)', async () => {
    for (const command of [everything.command, '/usr/bin/uvx', 'some-server']) {
      const res = await api<ErrorBody>(listed.apiUrl, 'POST', '/toolsets', { command, args: everything.args });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'STDIO_COMMAND_NOT_ALLOWED', errors: [{ path: '/command' }] });
    }
  });

  it('checks the body of a stdio toolset strictly, with paths', async () => {
    const res = await api<ErrorBody>(listed.apiUrl, 'POST', '/toolsets', {
      command: 'bin/tool',
      args: [1],
      env: { 'BAD-NAME': 'x' },
      url: 'http://x',
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((problem) => problem.path).sort()).toEqual(['/args/0', '/command', '/env/BAD-NAME', '/url']);
  });
});

describe('stdio toolsets: real servers in workflows', () => {
  const token = `tok-${randomBytes(12).toString('hex')}`;
  const workDir = mkdtempSync(join(tmpdir(), 'mcpflow-stdio-e2e-'));
  const folder = mkdtempSync(join(tmpdir(), 'mcpflow-fs-e2e-'));
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startRunStack({ STDIO_TOOLSETS: 'on', STDIO_COMMANDS: process.execPath, STDIO_WORK_DIR: workDir });
  });
  afterAll(async () => {
    await stack?.close();
    rmSync(workDir, { recursive: true, force: true });
    rmSync(folder, { recursive: true, force: true });
  });

  it('registers server-everything over stdio: env masked, sealed at rest, given to a minimal environment', async () => {
    const created = await api<StdioToolset>(stack.apiUrl, 'POST', '/toolsets', {
      name: 'everything',
      command: everything.command,
      args: everything.args,
      env: { MY_TOKEN: token },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'stdio',
      command: process.execPath,
      env: { MY_TOKEN: '***' },
      process: 'per-run',
      transport: 'stdio',
      requestedTransport: 'stdio',
    });
    expect(created.body.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['get-sum', 'get-env']));
    expect(existsSync(join(workDir, 'unsaved'))).toBe(true);

    const env = await api<{ text: string }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/tools/get-env/call`, { arguments: {} });
    expect(env.status).toBe(200);
    const childEnv = JSON.parse(env.body.text) as Record<string, string>;
    expect(childEnv.MY_TOKEN).toBe(token);
    // Nothing of the service's own environment (database and Redis URLs, keys) reaches the process.
    expect(
      Object.keys(childEnv).filter((name) => !['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'MY_TOKEN'].includes(name)),
    ).toEqual([]);
    expect(existsSync(join(workDir, created.body.id))).toBe(true);

    const got = await api<StdioToolset>(stack.apiUrl, 'GET', `/toolsets/${created.body.id}`);
    expect(got.body.env).toEqual({ MY_TOKEN: '***' });
    const patched = await api<ErrorBody>(stack.apiUrl, 'PATCH', `/toolsets/${created.body.id}`, { url: 'http://127.0.0.1:1/mcp' });
    expect(patched.status).toBe(400);
    expect(patched.body.errors).toEqual([expect.objectContaining({ path: '/url', code: 'NOT_APPLICABLE' })]);
    expect(JSON.stringify(await rawDatabaseDump(stack.config))).not.toContain(token);
  });

  it('runs a workflow over two stdio servers: filesystem writes and reads back a file, everything adds; each process ends with its run', async () => {
    const fs = await api<StdioToolset>(stack.apiUrl, 'POST', '/toolsets', { command: process.execPath, args: [filesystemEntry, folder] });
    expect(fs.status).toBe(201);
    expect(fs.body.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['write_file', 'read_text_file']));
    const sum = await api<StdioToolset>(stack.apiUrl, 'POST', '/toolsets', { command: everything.command, args: everything.args });
    const file = join(folder, 'note.txt');
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'stdio servers',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      nodes: [
        { id: 'start', type: 'start' },
        {
          id: 'write',
          type: 'mcpTool',
          config: { toolsetId: fs.body.id, tool: 'write_file' },
          inputs: { path: { value: file }, content: { ref: 'start.text' } },
        },
        { id: 'read', type: 'mcpTool', config: { toolsetId: fs.body.id, tool: 'read_text_file' }, inputs: { path: { value: file } } },
        { id: 'sum', type: 'mcpTool', config: { toolsetId: sum.body.id, tool: 'get-sum' }, inputs: { a: { value: 2 }, b: { value: 3 } } },
        { id: 'end', type: 'end', inputs: { content: { ref: 'read.text' }, sum: { ref: 'sum.text' } } },
      ],
      edges: [
        { source: 'start', target: 'write' },
        { source: 'write', target: 'read' },
        { source: 'start', target: 'sum' },
        { source: 'read', target: 'end' },
        { source: 'sum', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, workflowId, { text: 'written over stdio' });
    expect(run).toMatchObject({ status: 'succeeded', outputs: { content: 'written over stdio' } });
    expect(String((run.outputs as Record<string, unknown>).sum)).toContain('5');
    expect(readFileSync(file, 'utf8')).toBe('written over stdio');
    // Process per run: the run's pool closed, so neither server process is left behind.
    await waitUntil(
      () => childPidsMatching(filesystemEntry).length === 0 && childPidsMatching(everything.args?.[0] ?? '').length === 0,
      5_000,
      'stdio processes to exit',
    );
  });
});

describe('stdio toolsets: one process per worker when the toolset asks for it', () => {
  const folder = mkdtempSync(join(tmpdir(), 'mcpflow-fs-shared-e2e-'));
  let stack: TestStack | undefined;

  afterAll(async () => {
    await stack?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('keeps one server process for the runs of a per-worker toolset, and ends it with the worker', async () => {
    stack = await startRunStack({ STDIO_TOOLSETS: 'on', STDIO_COMMANDS: process.execPath });
    const created = await api<StdioToolset & { process: string }>(stack.apiUrl, 'POST', '/toolsets', {
      command: process.execPath,
      args: [filesystemEntry, folder],
      process: 'per-worker',
    });
    expect(created.status).toBe(201);
    expect(created.body.process).toBe('per-worker');
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'list the folder',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'list', type: 'mcpTool', config: { toolsetId: created.body.id, tool: 'list_allowed_directories' }, inputs: {} },
        { id: 'end', type: 'end', inputs: { dirs: { ref: 'list.text' } } },
      ],
      edges: [
        { source: 'start', target: 'list' },
        { source: 'list', target: 'end' },
      ],
    });
    const pids: number[][] = [];
    for (let run = 0; run < 2; run++) {
      expect(await runToEnd(stack.apiUrl, workflowId)).toMatchObject({ status: 'succeeded' });
      // The API's listing at create time had its own process; it ends, the worker's stays.
      await waitUntil(() => childPidsMatching(folder).length === 1, 5_000, 'one server process');
      pids.push(childPidsMatching(folder));
    }
    expect(pids[1]).toEqual(pids[0]);
    await stack.close();
    stack = undefined;
    expect(childPidsMatching(folder)).toEqual([]);
  });
});
