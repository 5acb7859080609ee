import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { createWorkflow, startRun, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { rawDatabaseDump } from '../support/toolsets.js';

describe('toolsets: secrets in workflow runs', () => {
  const apiKey = `key-${randomBytes(12).toString('hex')}`;
  let stack: TestStack;
  let fixture: FixtureServer;

  beforeAll(async () => {
    [stack, fixture] = await Promise.all([
      startRunStack(),
      startFixtureServer({ tools: basicTools(), auth: { header: 'x-api-key', value: apiKey } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([stack?.close(), fixture?.close()]);
  });

  it('the worker connects with the opened header; runs, run logs and every collection hold no secret', async () => {
    const toolset = await api<{ id: string }>(stack.apiUrl, 'POST', '/toolsets', { url: fixture.url, headers: { 'x-api-key': apiKey } });
    expect(toolset.status).toBe(201);
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo with a protected toolset',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId: toolset.body.id, tool: 'echo' }, inputs: { message: { ref: 'start.text' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'echo.result' } } },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    });
    const run = await startRun(stack.apiUrl, workflowId, { inputs: { text: 'through the worker' } }, '?wait=15000');
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'succeeded', outputs: { said: { echo: 'through the worker' } } });
    expect(fixture.calls('echo')).toBe(1);

    const logs = await api(stack.apiUrl, 'GET', `/runs/${(run.body as RunView).id}/logs`);
    expect(logs.status).toBe(200);
    const everything = JSON.stringify([run.body, logs.body, await rawDatabaseDump(stack.config)]);
    expect(everything).toContain('through the worker');
    expect(everything).not.toContain(apiKey);
    expect(everything).not.toContain(Buffer.from(apiKey).toString('base64'));
  });
});
