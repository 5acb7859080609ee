import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Types } from 'mongoose';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { as, createKey, greeting, type CreatedKey } from '../access/support.js';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { connectV1, closeV1, publish } from '../support/mcp-servers.js';
import { bearer } from '../support/auth.js';
import { insertRaw, updateRaw } from '../support/toolsets.js';

const ABSENT = '0123456789abcdef01234567';

/** greeting(name) with an echo node on a toolset between the template and the end. */
function withEcho(name: string, toolsetId: string) {
  const base = greeting(name);
  return {
    ...base,
    nodes: [
      ...base.nodes.slice(0, 2),
      { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'say.text' } } },
      { id: 'end', type: 'end', inputs: { greeting: { ref: 'echo.text' } } },
    ],
    edges: [
      { source: 'start', target: 'say' },
      { source: 'say', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  };
}

interface Problems {
  code: string;
  errors: { path: string; code: string; message: string }[];
}

describe('a workflow-limited key does not choose which toolsets a workflow uses', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let toolsetId: string;
  let workflowId: string;
  let writer: CreatedKey;
  let runner: CreatedKey;

  beforeAll(async () => {
    // Versions are written straight to the store here (the API would refuse them), and no broadcast
    // announces such a write: the API keeps no in-process copies of workflows for this file.
    stack = await startRunStack({ CACHE_MAX_AGE_MS: '0' });
    fixture = await startFixtureServer({ tools: basicTools() });
    toolsetId = await registerToolset(stack.apiUrl, fixture.url, 'admin only');
    workflowId = await createWorkflow(stack.apiUrl, greeting('w1'));
    writer = await createKey(stack.apiUrl, { name: 'w1 author', scopes: ['write'], workflows: [workflowId] });
    runner = await createKey(stack.apiUrl, { name: 'w1 runner', scopes: ['run', 'read'], workflows: [workflowId] });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await fixture?.close();
  });

  it('answers a toolset outside its grant exactly like an absent one, and saves nothing', async () => {
    const put = (id: string) => as(writer.key)<Problems>(stack.apiUrl, 'PUT', `/workflows/${workflowId}`, withEcho('w1', id));
    const existing = await put(toolsetId);
    const absent = await put(ABSENT);
    expect(existing.status).toBe(400);
    expect(existing.body.code).toBe('WORKFLOW_INVALID');
    expect(JSON.stringify(existing.body.errors).replaceAll(toolsetId, 'X')).toBe(
      JSON.stringify(absent.body.errors).replaceAll(ABSENT, 'X'),
    );
    const latest = await api<{ version: number }>(stack.apiUrl, 'GET', `/workflows/${workflowId}`);
    expect(latest.body.version).toBe(1);
  });

  it('refuses to run a version saved by a limited key with a toolset outside its grant', async () => {
    // What a limited key could save before this rule: version 2 by the limited writer, using the admin's toolset.
    await insertRaw(stack.config, 'workflow_versions', {
      workflowId: new Types.ObjectId(workflowId),
      version: 2,
      definition: JSON.stringify(withEcho('w1', toolsetId)),
      createdBy: writer.id,
      createdAt: new Date(),
    });
    const run = await as(runner.key)(stack.apiUrl, 'POST', `/workflows/${workflowId}/runs`, { inputs: { who: 'Eve' }, version: 2 });
    expect(run.status).toBe(403);
    expect(run.body.code).toBe('FORBIDDEN');
    const own = await as(runner.key)(stack.apiUrl, 'POST', `/workflows/${workflowId}/runs`, { inputs: { who: 'Ada' }, version: 1 });
    expect(own.status).toBe(202);
  });

  it('refuses the same version as a published MCP tool called with a limited key', async () => {
    const other = await createWorkflow(stack.apiUrl, greeting('w2'));
    const author = await createKey(stack.apiUrl, { name: 'w2 author', scopes: ['write'], workflows: [other] });
    const caller = await createKey(stack.apiUrl, { name: 'w2 caller', scopes: ['mcp'], workflows: [other] });
    const server = await publish(stack.apiUrl, { name: 'w2 tools', tools: [{ workflowId: other }] });
    const client = await connectV1(server.url, bearer(caller.key));
    try {
      const before = await client.callTool({ name: server.tools[0].name, arguments: { who: 'Ada' } });
      expect(before.isError).toBeFalsy();
      // The latest version becomes one the limited author saved with the admin's toolset.
      await insertRaw(stack.config, 'workflow_versions', {
        workflowId: new Types.ObjectId(other),
        version: 2,
        definition: JSON.stringify(withEcho('w2', toolsetId)),
        createdBy: author.id,
        createdAt: new Date(),
      });
      await updateRaw(stack.config, 'workflows', { _id: new Types.ObjectId(other) }, { $set: { latestVersion: 2 } });
      const refused = await client.callTool({ name: server.tools[0].name, arguments: { who: 'Eve' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('FORBIDDEN');
      const runs = await api<{ items: { inputs: Record<string, unknown> }[] }>(stack.apiUrl, 'GET', `/runs?workflowId=${other}`);
      expect(runs.body.items.map((run) => run.inputs.who)).toEqual(['Ada']);
    } finally {
      await closeV1(client);
    }
  }, 60_000);

  it('keeps and runs the toolsets a key without the limit chose', async () => {
    const chosen = await api(stack.apiUrl, 'PUT', `/workflows/${workflowId}`, withEcho('w1', toolsetId));
    expect(chosen.status).toBe(200);
    const kept = await as(writer.key)(stack.apiUrl, 'PUT', `/workflows/${workflowId}`, withEcho('w1 renamed', toolsetId));
    expect(kept.status).toBe(200);
    const ran = await as(runner.key)<{ status: string; outputs: unknown }>(
      stack.apiUrl,
      'POST',
      `/workflows/${workflowId}/runs?wait=20000`,
      {
        inputs: { who: 'Ada' },
      },
    );
    expect(ran.status).toBe(200);
    expect(ran.body).toMatchObject({ status: 'succeeded', outputs: { greeting: 'Hello Ada' } });
  });
});
