import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, startOAuthFixtureServer, type FixtureServer, type OAuthFixtureServer } from '#mcp/testing';
import { anonymousFetch, bearer, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, runToEnd } from '../support/runs.js';
import { startStack, type TestStack } from '../support/stack.js';
import { openBrowser, screenshot, seriousAxeViolations, signIn, type ConsoleBrowser } from './console-browser.js';

/** The console's toolsets, keys and published-server pages, used with the admin key. */
describe('web console: toolsets, keys and published servers', () => {
  let stack: TestStack;
  let tools: FixtureServer;
  let oauth: OAuthFixtureServer;
  let browser: ConsoleBrowser;
  let toolsetId: string;

  beforeAll(async () => {
    stack = await startStack();
    tools = await startFixtureServer({ tools: basicTools() });
    toolsetId = await registerToolset(stack.apiUrl, tools.url, 'fixture tools');
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { value: 'hi' } } },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    });
    for (let run = 0; run < 3; run++) expect((await runToEnd(stack.apiUrl, workflowId)).status).toBe('succeeded');
    const server = await api(stack.apiUrl, 'POST', '/mcp-servers', { name: 'Support desk', tools: [{ workflowId }] });
    expect(server.status).toBe(201);
    browser = await openBrowser(stack.apiUrl);
    await signIn(browser.page, stack.apiUrl, keyOf(stack.apiUrl));
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await oauth?.close();
    await tools?.close();
    await stack?.close();
  });

  it('lists toolsets with health; a toolset shows its tools, usage chart and change history, and refreshes', async () => {
    const { page } = browser;
    await api(stack.apiUrl, 'POST', `/toolsets/${toolsetId}/check`);
    await page.getByRole('link', { name: 'Toolsets' }).click();
    await page.locator(`[data-toolset="${toolsetId}"]`).getByText('healthy').waitFor();
    await page.getByRole('link', { name: 'fixture tools' }).click();
    await page.locator('[data-tool="echo"] summary').click();
    await page.locator('[data-tool="echo"]').getByText('"message"').first().waitFor();
    await page.getByRole('img', { name: /Calls and latency of 1 tools/ }).waitFor();
    await expect(page.locator('table.list tbody tr').first().textContent()).resolves.toMatch(/^echo3/);
    await page.getByRole('button', { name: 'Refresh tools' }).click();
    await page.getByRole('button', { name: 'Refresh tools' }).and(page.locator(':enabled')).waitFor();
    await page
      .getByText(/refresh: no difference|No changes to the tool list yet/)
      .first()
      .waitFor();
    await screenshot(page, 'toolset');
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 60_000);

  it('creates a key shown once, revokes it, and shows a published server with its client configuration', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Keys and servers' }).click();
    await page.getByLabel('Name', { exact: true }).fill('reporting');
    await page.getByRole('checkbox', { name: 'run' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = await page.getByTestId('created-key').locator('code').textContent();
    expect(shown).toMatch(/^mcpf_/);
    expect((await anonymousFetch(`${stack.apiUrl}/runs`, { headers: bearer(shown as string) })).status).toBe(200);

    const server = page.locator('article[data-server]');
    await server.getByText('"mcpServers"').waitFor();
    await expect(server.locator('pre').textContent()).resolves.toContain(`${stack.apiUrl}/mcp/`);
    await screenshot(page, 'keys');
    expect(await seriousAxeViolations(page)).toEqual([]);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke reporting' }).click();
    await page
      .getByRole('row', { name: /reporting/ })
      .getByText(/revoked/)
      .waitFor();
    expect((await anonymousFetch(`${stack.apiUrl}/runs`, { headers: bearer(shown as string) })).status).toBe(401);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(shown as string);
    await page
      .getByRole('row', { name: /admin \(ADMIN_API_KEY\)/ })
      .getByText("this tab's key")
      .waitFor();
  }, 60_000);

  it('authorizes an OAuth toolset: the Authorize button opens the authorization server, the page sees "authorized"', async () => {
    // The authorization server sends the browser back to <PUBLIC_BASE_URL>/oauth/callback; the stack
    // listens on a port chosen at start, so its address is given once known (read on every authorize).
    stack.config.mcp.publicBaseUrl = stack.apiUrl;
    oauth = await startOAuthFixtureServer();
    const created = await api<{ id: string; auth?: { state: string } }>(stack.apiUrl, 'POST', '/toolsets', {
      name: 'oauth tools',
      url: oauth.url,
      auth: { type: 'oauth' },
    });
    expect(created.status).toBe(201);
    expect(created.body.auth?.state).toBe('needs_authorization');

    const { page } = browser;
    await page.getByRole('link', { name: 'Toolsets' }).click();
    await page.locator(`[data-toolset="${created.body.id}"]`).getByText('needs authorization').waitFor();
    await page.getByRole('link', { name: 'oauth tools' }).click();
    await page.getByTestId('oauth-state').filter({ hasText: 'needs_authorization' }).waitFor();
    // Before its first listing the server has told no revision or name: the header leaves them out.
    const described = await page.locator('.page-header .muted').first().textContent();
    expect(described).toBe(`${oauth.url} · streamable-http`);
    await screenshot(page, 'toolset-oauth');
    expect(await seriousAxeViolations(page)).toEqual([]);

    // The fixture approves at once: the new tab goes authorization server → /oauth/callback, which stores the grant.
    const popup = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Authorize' }).click();
    const tab = await popup;
    await tab.waitForURL((url) => url.pathname === '/oauth/callback', { timeout: 30_000 });
    await expect(tab.locator('body').textContent()).resolves.toContain('"state":"authorized"');
    await expect(tab.evaluate('window.opener')).resolves.toBeNull();
    await tab.close();

    await page
      .getByTestId('oauth-state')
      .filter({ hasText: /^authorized$/ })
      .waitFor({ timeout: 30_000 });
    await page.locator('[data-tool="echo"]').waitFor();
    const toolset = await api<{ toolCount: number; auth?: { state: string } }>(stack.apiUrl, 'GET', `/toolsets/${created.body.id}`);
    expect(toolset.body).toMatchObject({ auth: { state: 'authorized' }, toolCount: expect.any(Number) });
    await screenshot(page, 'toolset-authorized');
  }, 90_000);
});
