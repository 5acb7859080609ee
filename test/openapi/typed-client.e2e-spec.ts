import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createMcpflowClient, type McpflowClient } from '#client';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { startRunStack } from '../support/runs.js';
import type { TestStack } from '../support/stack.js';

/** Every answer of the typed client is checked against the schema docs/openapi.json gives it. */
function conformanceChecker() {
  const document = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(document, 'openapi');
  const escape = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');
  return (method: string, path: string, result: { response: Response; data?: unknown; error?: unknown }) => {
    const status = String(result.response.status);
    const answer = `${method.toUpperCase()} ${path} ${status}`;
    const described = document.paths[path]?.[method]?.responses[status];
    if (!described) throw new Error(`${answer}: an answer the document does not describe`);
    if (!described.content) return undefined;
    const pointer = ['paths', path, method, 'responses', status, 'content', 'application/json', 'schema'].map(escape).join('/');
    const validate = ajv.getSchema(`openapi#/${pointer}`);
    const body = result.data ?? result.error;
    expect({ answer, valid: validate?.(body), errors: validate?.errors ?? null }).toEqual({ answer, valid: true, errors: null });
    return body;
  };
}

describe('the typed client against the real API: every answer matches the document', () => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let client: McpflowClient;
  const conforms = conformanceChecker();

  beforeAll(async () => {
    stack = await startRunStack();
    fixture = await startFixtureServer({ tools: basicTools() });
    client = createMcpflowClient(stack.apiUrl);
  });
  afterAll(async () => {
    await stack.close();
    await fixture.close();
  });

  it('toolsets: create, list, get, check, refresh, call a tool, errors', async () => {
    const created = await client.POST('/toolsets', { body: { name: 'fixture', url: fixture.url } });
    conforms('post', '/toolsets', created);
    expect(created.response.status).toBe(201);
    const id = created.data?.id ?? '';
    expect(created.data?.tools.map((tool) => tool.name)).toContain('add');

    conforms('get', '/toolsets', await client.GET('/toolsets', { params: { query: { limit: 5 } } }));
    conforms('get', '/toolsets/{id}', await client.GET('/toolsets/{id}', { params: { path: { id } } }));
    conforms('post', '/toolsets/{id}/check', await client.POST('/toolsets/{id}/check', { params: { path: { id } } }));
    conforms('post', '/toolsets/{id}/refresh', await client.POST('/toolsets/{id}/refresh', { params: { path: { id } } }));
    const call = await client.POST('/toolsets/{id}/tools/{tool}/call', {
      params: { path: { id, tool: 'add' } },
      body: { arguments: { a: 2, b: 3 } },
    });
    conforms('post', '/toolsets/{id}/tools/{tool}/call', call);
    expect(call.data?.isError).toBe(false);
    const badArguments = await client.POST('/toolsets/{id}/tools/{tool}/call', {
      params: { path: { id, tool: 'add' } },
      body: { arguments: { a: 'two' } },
    });
    expect(badArguments.response.status).toBe(400);
    conforms('post', '/toolsets/{id}/tools/{tool}/call', badArguments);
    const preview = await client.POST('/toolsets/preview', { body: { url: fixture.url } });
    conforms('post', '/toolsets/preview', preview);
    const unreachable = await client.POST('/toolsets/preview', { body: { url: 'http://127.0.0.1:9/mcp' } });
    expect(unreachable.response.status).toBe(422);
    conforms('post', '/toolsets/preview', unreachable);
    const dryRun = await client.POST('/toolsets/import', {
      params: { query: { dryRun: 'true' } },
      body: { mcpServers: { one: { url: fixture.url }, two: {} } },
    });
    conforms('post', '/toolsets/import', dryRun);
    conforms('patch', '/toolsets/{id}', await client.PATCH('/toolsets/{id}', { params: { path: { id } }, body: { name: 'renamed' } }));
  });

  it('workflows and runs: create, validate, run, read the log, retry, cancel a finished run, delete', async () => {
    const toolset = await client.POST('/toolsets', { body: { url: fixture.url } });
    const toolsetId = toolset.data?.id ?? '';
    const definition = {
      name: 'sum',
      inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'add', type: 'mcpTool', config: { toolsetId, tool: 'add' }, inputs: { a: { ref: 'start.a' }, b: { value: 1 } } },
        { id: 'end', type: 'end', inputs: { sum: { ref: 'add.result' } } },
      ],
      edges: [
        { source: 'start', target: 'add' },
        { source: 'add', target: 'end' },
      ],
    };
    conforms('post', '/workflows/validate', await client.POST('/workflows/validate', { body: definition }));
    const workflow = await client.POST('/workflows', { body: definition });
    conforms('post', '/workflows', workflow);
    const id = workflow.data?.id ?? '';
    conforms('put', '/workflows/{id}', await client.PUT('/workflows/{id}', { params: { path: { id } }, body: definition }));
    conforms('get', '/workflows', await client.GET('/workflows'));
    conforms('get', '/workflows/{id}', await client.GET('/workflows/{id}', { params: { path: { id } } }));
    conforms('get', '/workflows/{id}/versions', await client.GET('/workflows/{id}/versions', { params: { path: { id } } }));
    conforms(
      'get',
      '/workflows/{id}/versions/{version}',
      await client.GET('/workflows/{id}/versions/{version}', { params: { path: { id, version: '2' } } }),
    );
    const invalid = await client.POST('/workflows', { body: { ...definition, edges: [{ source: 'start', target: 'nowhere' }] } });
    expect(invalid.response.status).toBe(400);
    conforms('post', '/workflows', invalid);

    const run = await client.POST('/workflows/{id}/runs', {
      params: { path: { id }, query: { wait: 20_000 } },
      body: { inputs: { a: 41 } },
    });
    conforms('post', '/workflows/{id}/runs', run);
    expect(run.data).toMatchObject({ status: 'succeeded' });
    const runId = run.data?.id ?? '';
    conforms('get', '/runs', await client.GET('/runs', { params: { query: { workflowId: id } } }));
    conforms('get', '/runs/{id}', await client.GET('/runs/{id}', { params: { path: { id: runId } } }));
    const logs = await client.GET('/runs/{id}/logs', { params: { path: { id: runId } } });
    conforms('get', '/runs/{id}/logs', logs);
    expect(logs.data?.items.map((item) => item.nodeId)).toEqual(['start', 'add', 'end']);
    conforms('post', '/runs/{id}/retry', await client.POST('/runs/{id}/retry', { params: { path: { id: runId } } }));
    const cancelFinished = await client.POST('/runs/{id}/cancel', { params: { path: { id: runId } } });
    expect(cancelFinished.response.status).toBe(409);
    conforms('post', '/runs/{id}/cancel', cancelFinished);
    const missing = await client.GET('/runs/{id}', { params: { path: { id: '6b02c0ffee0000000000beef' } } });
    expect(missing.response.status).toBe(404);
    conforms('get', '/runs/{id}', missing);
    conforms('delete', '/workflows/{id}', await client.DELETE('/workflows/{id}', { params: { path: { id } } }));
  });

  it('providers: create, list, get, change, delete', async () => {
    const created = await client.POST('/providers', { body: { name: 'llm', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-secret' } });
    conforms('post', '/providers', created);
    const id = created.data?.id ?? '';
    conforms('get', '/providers', await client.GET('/providers'));
    conforms('get', '/providers/{id}', await client.GET('/providers/{id}', { params: { path: { id } } }));
    conforms('patch', '/providers/{id}', await client.PATCH('/providers/{id}', { params: { path: { id } }, body: { models: ['m'] } }));
    const removed = await client.DELETE('/providers/{id}', { params: { path: { id } } });
    expect(removed.response.status).toBe(204);
    conforms('delete', '/providers/{id}', removed);
  });
});
