import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import { anonymousFetch, bearer, keyOf } from '../support/auth.js';
import { api } from '../support/http.js';
import { createWorkflow, registerToolset, runToEnd } from '../support/runs.js';
import { startStack, type TestStack } from '../support/stack.js';
import { openBrowser, screenshot, seriousAxeViolations, signIn, type ConsoleBrowser } from './console-browser.js';

/** The console's toolsets, keys and published-server pages, used with the admin key. */
describe('web console: toolsets, keys and published servers', () => {
  let stack: TestStack;
  let tools: FixtureServer;
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
});
