import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startFixtureServer, startStatelessFixtureServer, type FixtureServer, type StatelessFixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { createWorkflow, expectNoSessions, runToEnd, startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface ToolsetBody {
  id: string;
  transport: string;
  protocolVersion: string;
  serverInfo: { name: string; protocolVersion: string };
  toolCount: number;
}

/** One URL per MCP generation, each reached through the same toolset API and the same run path. */
describe('toolsets: every MCP generation behind one URL', () => {
  let stack: TestStack;
  const sessionServers: FixtureServer[] = [];
  let stateless: StatelessFixtureServer;
  const generations: { version: string; transport: string; url: () => string }[] = [];

  beforeAll(async () => {
    stack = await startRunStack();
    for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']) {
      const server = await startFixtureServer({ protocolVersion: version, name: `fixture-${version}` });
      sessionServers.push(server);
      // 2024-11-05 servers speak legacy HTTP+SSE only: the user has its /sse URL.
      generations.push(
        version === '2024-11-05'
          ? { version, transport: 'sse', url: () => server.sseUrl }
          : { version, transport: 'streamable-http', url: () => server.url },
      );
    }
    stateless = await startStatelessFixtureServer();
    generations.push({ version: '2026-07-28', transport: 'streamable-http', url: () => stateless.url });
  });
  afterAll(async () => {
    await stack.close();
    await Promise.all([...sessionServers, stateless].map((server) => server.close()));
  });

  it('creates a toolset for each generation, shows its protocolVersion, calls a tool ad hoc and in a run', async () => {
    for (const { version, transport, url } of generations) {
      const created = await api<ToolsetBody>(stack.apiUrl, 'POST', '/toolsets', { name: `gen ${version}`, url: url() });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ transport, protocolVersion: version, serverInfo: { protocolVersion: version } });
      const read = await api<ToolsetBody>(stack.apiUrl, 'GET', `/toolsets/${created.body.id}`);
      expect(read.body.protocolVersion).toBe(version);

      const adHoc = await api<{ text: string }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/tools/echo/call`, {
        arguments: { message: version },
      });
      expect(adHoc.status).toBe(200);
      expect(adHoc.body.text).toBe(version);

      const workflowId = await createWorkflow(stack.apiUrl, {
        name: `echo over ${version}`,
        nodes: [
          { id: 'start', type: 'start' },
          {
            id: 'echo',
            type: 'mcpTool',
            config: { toolsetId: created.body.id, tool: 'echo' },
            inputs: { message: { value: `run ${version}` } },
          },
          { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
        ],
        edges: [
          { source: 'start', target: 'echo' },
          { source: 'echo', target: 'end' },
        ],
      });
      const run = await runToEnd(stack.apiUrl, workflowId);
      expect(run).toMatchObject({ status: 'succeeded', outputs: { said: `run ${version}` } });
    }
    await expectNoSessions(...sessionServers);
    // The stateless server never saw a session id, a DELETE or an initialize.
    expect(stateless.sessionTraffic()).toEqual({ withSessionId: 0, deletes: 0 });
    expect(stateless.requests('initialize')).toBe(0);
  });

  it('a session server is reached on its remembered path run after run: no stateless probe once the toolset knows its revision', async () => {
    const server = await startFixtureServer({ name: 'remembered' });
    try {
      const created = await api<ToolsetBody>(stack.apiUrl, 'POST', '/toolsets', { name: 'remembered', url: server.url });
      expect(created.body.protocolVersion).toBe('2025-11-25');
      const workflowId = await createWorkflow(stack.apiUrl, {
        name: 'echo on the remembered path',
        nodes: [
          { id: 'start', type: 'start' },
          { id: 'echo', type: 'mcpTool', config: { toolsetId: created.body.id, tool: 'echo' }, inputs: { message: { value: 'again' } } },
          { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
        ],
        edges: [
          { source: 'start', target: 'echo' },
          { source: 'echo', target: 'end' },
        ],
      });
      const before = server.sessionlessPosts();
      // Later runs read the toolset's connection without its tools (cached by revision): that read must carry the revision too.
      for (let run = 0; run < 3; run++) {
        expect(await runToEnd(stack.apiUrl, workflowId)).toMatchObject({ status: 'succeeded', outputs: { said: 'again' } });
      }
      const adHoc = await api<{ text: string }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/tools/echo/call`, {
        arguments: { message: 'ad hoc' },
      });
      expect(adHoc.body.text).toBe('ad hoc');
      // One initialize per session (three runs, one ad-hoc call), and no refused server/discover before any of them.
      expect(server.sessionlessPosts() - before).toBe(4);
      await expectNoSessions(server);
    } finally {
      await server.close();
    }
  });

  it('a server that changed generation at the same URL is still reached; a refresh stores its new protocolVersion', async () => {
    const old = await startFixtureServer({ protocolVersion: '2025-06-18', name: 'before' });
    const port = Number(new URL(old.url).port);
    const created = await api<ToolsetBody>(stack.apiUrl, 'POST', '/toolsets', { url: old.url });
    expect(created.body.protocolVersion).toBe('2025-06-18');
    await old.close();
    const upgraded = await startStatelessFixtureServer({ name: 'after', port });
    try {
      // The remembered 2025-06-18 path fails first, the stateless one answers.
      const adHoc = await api<{ text: string }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/tools/echo/call`, {
        arguments: { message: 'still here' },
      });
      expect(adHoc.body.text).toBe('still here');
      const refreshed = await api<{ toolset: ToolsetBody }>(stack.apiUrl, 'POST', `/toolsets/${created.body.id}/refresh`);
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.toolset).toMatchObject({ protocolVersion: '2026-07-28', serverInfo: { name: 'after' } });
    } finally {
      await upgraded.close();
    }
  });
});
