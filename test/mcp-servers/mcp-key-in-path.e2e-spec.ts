import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { RunView } from '#workflow/nest';
import { createKey, type CreatedKey } from '../access/support.js';
import { spawnApi, type ApiProcess } from '../support/api-process.js';
import { anonymousFetch } from '../support/auth.js';
import { api } from '../support/http.js';
import {
  callEntry,
  closeV1,
  connectV1,
  connectV1Sse,
  connectV2,
  createGreetWorkflow,
  mcpEntries,
  publish,
  type PublishedServer,
} from '../support/mcp-servers.js';
import { startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';
import { rawDatabaseDump } from '../support/toolsets.js';

type ToolResult = { structuredContent?: Record<string, unknown>; _meta?: Record<string, string> };

describe('MCP_KEY_IN_PATH: /mcp/<id>/key/<api key> for clients that cannot send headers', () => {
  let stack: TestStack;
  /** A real API process with MCP_KEY_IN_PATH=on and debug logs; no key is registered for it, so clients send no header. */
  let withKeyInPath: ApiProcess;
  let server: PublishedServer;
  let key: CreatedKey;

  beforeAll(async () => {
    stack = await startRunStack();
    withKeyInPath = await spawnApi(stack.config, { MCP_KEY_IN_PATH: 'on', LOG_LEVEL: 'debug' });
    const greet = await createGreetWorkflow(stack.apiUrl);
    server = await publish(stack.apiUrl, { name: 'headerless', tools: [{ workflowId: greet }] });
    key = await createKey(stack.apiUrl, { name: 'no headers', scopes: ['mcp'] });
  }, 60_000);
  afterAll(async () => {
    await withKeyInPath?.stop();
    await stack.close();
  });

  it('is off by default: those routes answer 404 without using or repeating the key', async () => {
    for (const entry of mcpEntries(`${stack.apiUrl}/mcp/${server.id}/key/${key.key}`)) {
      const res = await callEntry(entry, undefined);
      expect({ entry: entry.name, status: res.status }).toEqual({ entry: entry.name, status: 404 });
      expect(res.body).toContain('MCP_KEY_IN_PATH');
      expect(res.body).not.toContain(key.key);
    }
    expect((await api<{ lastUsedAt: string | null }>(stack.apiUrl, 'GET', `/api-keys/${key.id}`)).body.lastUsedAt).toBeNull();
  });

  it('when on, serves every client generation; the key is then in no log line, run, database document or error body', async () => {
    const pathUrl = `${withKeyInPath.url}/mcp/${server.id}/key/${key.key}`;
    const clients = [await connectV1(pathUrl), await connectV2(pathUrl), await connectV1Sse(pathUrl)];
    const runIds: string[] = [];
    for (const [i, client] of clients.entries()) {
      const result = (await client.callTool({ name: 'greet', arguments: { name: `path-${i}` } })) as ToolResult;
      expect(result.structuredContent).toEqual({ greeting: `Hello path-${i}`, n: 1 });
      runIds.push(String(result._meta?.['mcpflow/runId']));
    }
    await closeV1(clients[0] as Awaited<ReturnType<typeof connectV1>>);
    await Promise.all(clients.slice(1).map((client) => client.close()));

    const wrongKey = `mcpf_${'z'.repeat(43)}`;
    const errorBodies: string[] = [];
    for (const entry of mcpEntries(`${withKeyInPath.url}/mcp/${server.id}/key/${wrongKey}`)) {
      const res = await callEntry(entry, undefined);
      expect({ entry: entry.name, status: res.status }).toEqual({ entry: entry.name, status: 401 });
      errorBodies.push(res.body);
    }
    const unmatched = await anonymousFetch(`${pathUrl}/elsewhere`);
    expect(unmatched.status).toBe(404);
    errorBodies.push(await unmatched.text());
    expect(errorBodies.join('\n')).toContain('/key/***');

    const records: unknown[] = [];
    for (const runId of runIds) {
      const run = await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`);
      expect(run.body).toMatchObject({ status: 'succeeded', source: 'mcp', triggeredBy: key.id, mcpServerId: server.id });
      records.push(run.body, (await api(stack.apiUrl, 'GET', `/runs/${runId}/logs`)).body);
    }
    const output = withKeyInPath.output();
    expect(output).toContain(`/mcp/${server.id}/key/***`); // the request lines were logged, masked
    for (const [where, text] of [
      ['the API log', output],
      ['error bodies', errorBodies.join('\n')],
      ['runs and logs', JSON.stringify(records)],
      ['the database', JSON.stringify(await rawDatabaseDump(stack.config))],
    ]) {
      expect({ where, hasKey: text.includes(key.key), hasWrongKey: text.includes(wrongKey) }).toEqual({
        where,
        hasKey: false,
        hasWrongKey: false,
      });
    }
  }, 30_000);
});
