import { expect } from '@jest/globals';

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
