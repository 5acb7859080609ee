import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  type ElicitRequestURLParams,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { startOAuthFixtureServer, type OAuthFixtureServer } from '#mcp/testing';
import { api } from '../support/http.js';
import { closeV1, connectV1, connectV2, publish } from '../support/mcp-servers.js';
import { spawnApi } from '../support/api-process.js';
import { authenticateAs, keyOf } from '../support/auth.js';
import { approve, perUserToolset, perUserWorkflow } from '../support/oauth.js';
import { createWorkflow, startRunStack, waitForRun } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

interface ToolResult {
  isError?: boolean;
  content: { text?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** A 2025-11-25 client that declares URL elicitation; `answer` is what its user does with each request. */
async function connectEliciting(
  url: string,
  answer: (params: ElicitRequestURLParams) => Promise<ElicitResult>,
  route: typeof fetch = fetch,
) {
  const client = new ClientV1({ name: 'mcpflow-e2e', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const asked: ElicitRequestURLParams[] = [];
  const completed: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as ElicitRequestURLParams;
    asked.push(params);
    return answer(params);
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (notification) => {
    completed.push(notification.params.elicitationId);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: route }));
  return { client, asked, completed };
}

describe('published MCP servers: per-user OAuth passed on as URL-mode elicitation (MCP 2025-11-25)', () => {
  let stack: TestStack;
  let fixture: OAuthFixtureServer;

  beforeAll(async () => {
    stack = await startRunStack();
  }, 60_000);
  afterAll(async () => stack?.close(), 60_000);
  afterEach(async () => fixture?.close());

  /** A published echo tool through a fresh per-user toolset; the tool's name and the toolset's. */
  async function publishedPerUserTool(): Promise<{ url: string; tool: string; toolsetName: string }> {
    fixture = await startOAuthFixtureServer();
    const toolsetId = await perUserToolset(stack.apiUrl, fixture.url);
    const toolset = await api<{ name: string }>(stack.apiUrl, 'GET', `/toolsets/${toolsetId}`);
    const workflowId = await createWorkflow(stack.apiUrl, perUserWorkflow(toolsetId, true));
    const server = await publish(stack.apiUrl, { name: 'per user', tools: [{ workflowId }] });
    return { url: server.url, tool: server.tools[0].name, toolsetName: toolset.body.name };
  }

  it("the client's user opens the URL; the call answers the run's result with that subject's token", async () => {
    const published = await publishedPerUserTool();
    const callbacks: Promise<unknown>[] = [];
    // The client opens the URL in the user's browser and answers at once; the user signs in meanwhile.
    const { client, asked, completed } = await connectEliciting(published.url, async (params) => {
      callbacks.push(approve(params.url).then((query) => api(stack.apiUrl, 'GET', `/oauth/callback${query}`)));
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({ name: published.tool, arguments: { user: 'carol', text: 'via MCP' } })) as ToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ said: { echo: 'via MCP' } });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: 'url', elicitationId: expect.any(String) });
      expect(new URL(asked[0].url).origin).toBe(fixture.origin);
      expect(asked[0].message).toContain(`"${published.toolsetName}"`);
      expect(completed).toEqual([asked[0].elicitationId]);
      const [callback] = (await Promise.all(callbacks)) as { body: Record<string, unknown> }[];
      const runId = String(result._meta?.['mcpflow/runId']);
      expect(callback.body).toMatchObject({ state: 'authorized', runId, runResumed: true });
      // The subject's own grant made the call: one call, not with the toolset's own (user-1) grant.
      const seen = fixture.seenTokens();
      expect(seen).toHaveLength(1);
      expect(seen[0].subject).not.toBe('user-1');
      // Nothing secret travelled in the elicitation.
      const sent = JSON.stringify(asked);
      for (const token of fixture.issuedTokens()) expect(sent).not.toContain(token);
    } finally {
      await closeV1(client);
    }
  }, 90_000);

  it("the client's answer may reach another API process than the call: it is passed on over Redis", async () => {
    const second = await spawnApi(stack.config);
    authenticateAs(second.url, keyOf(stack.apiUrl));
    try {
      const published = await publishedPerUserTool();
      const answersOnSecond: string[] = [];
      // The call goes to this process, every other request (initialize, the elicitation's answer…) to the second one.
      const split: typeof fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const body = typeof init?.body === 'string' ? init.body : '';
        url.host = new URL(body.includes('"tools/call"') ? stack.apiUrl : second.url).host;
        if (body.includes('"result"')) answersOnSecond.push(body);
        return fetch(url, init);
      };
      const { client, asked, completed } = await connectEliciting(
        published.url,
        async (params) => {
          await api(stack.apiUrl, 'GET', `/oauth/callback${await approve(params.url)}`);
          return { action: 'accept' };
        },
        split,
      );
      try {
        const result = (await client.callTool({ name: published.tool, arguments: { user: 'gina', text: 'across' } })) as ToolResult;
        expect(result.structuredContent).toEqual({ said: { echo: 'across' } });
        expect(answersOnSecond).toHaveLength(1);
        expect(completed).toEqual([asked[0].elicitationId]);
      } finally {
        await closeV1(client);
      }
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('a declined elicitation answers the call with MCP_AUTH_REQUIRED and fails the run', async () => {
    const published = await publishedPerUserTool();
    const { client, asked, completed } = await connectEliciting(published.url, async () => ({ action: 'decline' }));
    try {
      const result = (await client.callTool({ name: published.tool, arguments: { user: 'dave', text: 'no' } })) as ToolResult;
      expect(asked).toHaveLength(1);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^MCP_AUTH_REQUIRED: .*input:dave was declined/);
      const run = await waitForRun(stack.apiUrl, String(result._meta?.['mcpflow/runId']), 30_000);
      expect(run.status).toBe('failed');
      expect(completed).toEqual([]);
      expect(fixture.seenTokens()).toEqual([]);
    } finally {
      await closeV1(client);
    }
  }, 90_000);

  it('a client without URL elicitation gets -32042 with the URL; its waiting run is canceled, a retry after the authorization runs', async () => {
    const published = await publishedPerUserTool();
    const client = await connectV1(published.url);
    try {
      const call = () => client.callTool({ name: published.tool, arguments: { user: 'erin', text: 'after -32042' } });
      const refused = await call().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).code).toBe(ErrorCode.UrlElicitationRequired);
      const [elicitation] = ((refused as McpError).data as { elicitations: ElicitRequestURLParams[] }).elicitations;
      expect(elicitation).toMatchObject({
        mode: 'url',
        elicitationId: expect.any(String),
        message: expect.stringContaining(published.toolsetName),
      });
      expect(new URL(elicitation.url).origin).toBe(fixture.origin);

      const callback = await api<{ runId: string; runResumed: boolean }>(
        stack.apiUrl,
        'GET',
        `/oauth/callback${await approve(elicitation.url)}`,
      );
      expect(callback.body).toMatchObject({ state: 'authorized', runResumed: false });
      expect((await waitForRun(stack.apiUrl, callback.body.runId, 30_000)).status).toBe('canceled');
      const retried = (await call()) as ToolResult;
      expect(retried.structuredContent).toEqual({ said: { echo: 'after -32042' } });
      expect(fixture.seenTokens()).toHaveLength(1);
    } finally {
      await closeV1(client);
    }
  }, 90_000);

  it('a 2025-06-18 client (no URL elicitation in its revision) keeps the URL in the RUN_STILL_RUNNING text', async () => {
    const published = await publishedPerUserTool();
    const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fetch(published.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      });
    const clientInfo = { name: 'old', version: '1' };
    const initialized = await post({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
    });
    const session = String(initialized.headers.get('mcp-session-id'));
    await initialized.text();
    const called = await post(
      { id: 2, method: 'tools/call', params: { name: published.tool, arguments: { user: 'hank', text: 'old' } } },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    );
    const answer = await called.text();
    expect(answer).toContain('RUN_STILL_RUNNING: run');
    expect(answer).toContain(`open ${fixture.origin}/`);
    expect(answer).not.toContain('-32042');
  }, 60_000);

  it('2026-07-28: the input_required round carries the URL; the retry continues the same run and answers its result', async () => {
    const published = await publishedPerUserTool();
    const asked: { mode?: string; url?: string; message: string }[] = [];
    const callbacks: Promise<{ body: Record<string, unknown> }>[] = [];
    const client = await connectV2(published.url, { capabilities: { elicitation: { url: {} } } });
    client.setRequestHandler('elicitation/create', async ({ params }) => {
      const url = 'url' in params ? String(params.url) : '';
      asked.push({ mode: params.mode, url, message: params.message });
      callbacks.push(approve(url).then((query) => api(stack.apiUrl, 'GET', `/oauth/callback${query}`)));
      return { action: 'accept' };
    });
    try {
      const result = (await client.callTool({ name: published.tool, arguments: { user: 'frank', text: 'in two rounds' } })) as ToolResult;
      expect(result.structuredContent).toEqual({ said: { echo: 'in two rounds' } });
      expect(asked).toHaveLength(1);
      expect(asked[0].mode).toBe('url');
      expect(new URL(asked[0].url as string).origin).toBe(fixture.origin);
      expect(asked[0].message).toContain(`"${published.toolsetName}"`);
      const [callback] = await Promise.all(callbacks);
      expect(callback.body).toMatchObject({ runId: result._meta?.['mcpflow/runId'], runResumed: true });
      expect(fixture.seenTokens()).toHaveLength(1);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('2026-07-28: a declined round fails the run that waited, and the retry answers that', async () => {
    const published = await publishedPerUserTool();
    const client = await connectV2(published.url, { capabilities: { elicitation: { url: {} } } });
    let asked = 0;
    client.setRequestHandler('elicitation/create', async () => {
      asked += 1;
      return { action: 'decline' };
    });
    try {
      const result = (await client.callTool({ name: published.tool, arguments: { user: 'ivy', text: 'no' } })) as ToolResult;
      expect(asked).toBe(1);
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^MCP_AUTH_REQUIRED: .*input:ivy was declined/);
      expect((await waitForRun(stack.apiUrl, String(result._meta?.['mcpflow/runId']), 30_000)).status).toBe('failed');
      expect(fixture.seenTokens()).toEqual([]);
    } finally {
      await client.close();
    }
  }, 90_000);

  it('2026-07-28: a requestState that is not ours is refused (-32602)', async () => {
    const published = await publishedPerUserTool();
    const client = await connectV2(published.url, { inputRequired: { autoFulfill: false } });
    try {
      const refused = await client
        .request(
          { method: 'tools/call', params: { name: published.tool, arguments: { text: 'x' }, requestState: 'forged' } },
          { allowInputRequired: true },
        )
        .then(
          () => undefined,
          (error: unknown) => error as { code?: number; message?: string },
        );
      expect(refused).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid or expired requestState') });
    } finally {
      await client.close();
    }
  }, 60_000);
});
