import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createKey } from '../access/support.js';
import { anonymousFetch } from '../support/auth.js';
import { createGreetWorkflow, publish } from '../support/mcp-servers.js';
import { startLoggedApi, type LoggedApi } from '../support/toolsets.js';

describe('an API key in the path is masked whatever the case of the path', () => {
  let stack: LoggedApi;

  beforeAll(async () => {
    stack = await startLoggedApi({ MCP_KEY_IN_PATH: 'on' });
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('keeps the key of /MCP/<id>/KEY/<key> out of log lines and 404 bodies', async () => {
    const server = await publish(stack.url, { name: 'cased', tools: [{ workflowId: await createGreetWorkflow(stack.url) }] });
    const { key } = await createKey(stack.url, { name: 'in the path', scopes: ['mcp'] });
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const served = await anonymousFetch(`${stack.url}/MCP/${server.id}/KEY/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: initialize,
    });
    expect(served.status).toBe(200);
    await served.text();
    const unmatched = await anonymousFetch(`${stack.url}/Mcp/${server.id}/Key/${key}/elsewhere`);
    expect(unmatched.status).toBe(404);
    const body = await unmatched.text();
    expect(body).toContain('/Key/***');
    expect(body).not.toContain(key);
    expect(stack.logs.join('\n')).not.toContain(key);
  });
});
