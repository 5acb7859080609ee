import { expect } from '@jest/globals';
import { api } from './http.js';

/** OAuth toolsets in e2e tests (the fixture: startOAuthFixtureServer from #mcp/testing). */

/** What the person's browser does: open the URL, be sent back with the code; the callback URL's query. */
export async function approve(authorizationUrl: string): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(response.status).toBe(302);
  return new URL(String(response.headers.get('location'))).search;
}

/** start → echo (the toolset's) → end `{said}`; `properties`: more inputs beside the required `text`. */
export function echoWorkflow(toolsetId: string, name: string, properties: Record<string, unknown> = {}) {
  return {
    name,
    inputSchema: { type: 'object', properties: { ...properties, text: { type: 'string' } }, required: ['text'] },
    nodes: [
      { id: 'start', type: 'start' },
      { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'start.text' } } },
      { id: 'end', type: 'end', inputs: { said: { ref: 'echo.result' } } },
    ],
    edges: [
      { source: 'start', target: 'echo' },
      { source: 'echo', target: 'end' },
    ],
  };
}

/** echo through a per-user toolset; `subjectInput`: the workflow names its `user` input as the run's subject. */
export const perUserWorkflow = (toolsetId: string, subjectInput: boolean) =>
  echoWorkflow(toolsetId, 'echo per user', subjectInput ? { user: { type: 'string', 'x-mcpflow-subject': true } } : {});

/** A per-user OAuth toolset of the fixture at `url`, whose own grant (a person's, once) listed its tools; its id. */
export async function perUserToolset(apiUrl: string, url: string): Promise<string> {
  const created = await api<{ id: string; auth?: { perUser?: boolean; state: string } }>(apiUrl, 'POST', '/toolsets', {
    url,
    auth: { type: 'oauth', perUser: true },
  });
  expect(created.status).toBe(201);
  expect(created.body.auth).toMatchObject({ perUser: true, state: 'needs_authorization' });
  const id = created.body.id;
  const started = await api<{ authorizationUrl: string }>(apiUrl, 'POST', `/toolsets/${id}/authorize`);
  const listed = await api<{ toolCount: number }>(apiUrl, 'GET', `/oauth/callback${await approve(started.body.authorizationUrl)}`);
  expect(listed.body.toolCount).toBeGreaterThan(0);
  return id;
}
