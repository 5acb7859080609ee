import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { allLogs, createWorkflow, registerToolset, runToEnd } from '../support/runs.js';
import { api } from '../support/http.js';
import { startStack, type TestStack } from '../support/stack.js';
import { openBrowser, screenshot, seriousAxeViolations, signIn, type ConsoleBrowser } from './console-browser.js';

/** The run page with the control-flow features: "Re-run from here" (the replay route) and a map's items grouped by index. */
describe('web console: re-run from a node, map items by index', () => {
  let stack: TestStack;
  let tools: FixtureServer;
  let browser: ConsoleBrowser;
  let toolsetId: string;

  beforeAll(async () => {
    stack = await startStack();
    tools = await startFixtureServer({ tools: basicTools() });
    toolsetId = await registerToolset(stack.apiUrl, tools.url, 'fixture tools');
    const created = await api<{ key: string }>(stack.apiUrl, 'POST', '/api-keys', { name: 'console test', scopes: ['read', 'run'] });
    expect(created.status).toBe(201);
    browser = await openBrowser(stack.apiUrl);
    await signIn(browser.page, stack.apiUrl, created.body.key);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await tools?.close();
    await stack?.close();
  });

  it('re-runs a finished run from a node: the secret input asked again, lands on the new run, upstream replayed', async () => {
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo twice',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string' }, token: { type: 'string', writeOnly: true, title: 'Token' } },
        required: ['message'],
      },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'first', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'start.message' } } },
        { id: 'second', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { template: '{{first.text}}!' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'second.text' } } },
      ],
      edges: [
        { source: 'start', target: 'first' },
        { source: 'first', target: 'second' },
        { source: 'second', target: 'end' },
      ],
    });
    const earlier = await runToEnd(stack.apiUrl, workflowId, { message: 'once', token: 's3cret-first' });
    expect(earlier).toMatchObject({ status: 'succeeded', outputs: { said: 'once!' } });
    const callsBefore = tools.calls('echo');

    const { page } = browser;
    await page.goto(`${stack.apiUrl}/ui/#/runs/${earlier.id}`);
    await page.locator('[data-node="second"][data-state="succeeded"]').click();
    const replay = page.getByRole('region', { name: 'Re-run from second' });
    await expect(replay.getByLabel('Token').getAttribute('type')).resolves.toBe('password');
    await replay.getByLabel('Token').fill('s3cret-again');
    await screenshot(page, 'run-replay');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await replay.getByRole('button', { name: 'Re-run from here' }).click();

    await page.waitForURL((url) => /#\/runs\/[0-9a-f]{24}$/.test(url.hash) && !url.hash.endsWith(earlier.id));
    await page.locator('[data-node="end"][data-state="succeeded"]').waitFor({ timeout: 30_000 });
    await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor();
    const replayId = page.url().split('/').at(-1) as string;
    const again = (await api<RunView>(stack.apiUrl, 'GET', `/runs/${replayId}`)).body;
    expect(again).toMatchObject({
      status: 'succeeded',
      replayOf: earlier.id,
      outputs: { said: 'once!' },
      inputs: { message: 'once', token: '***' },
    });
    // `first` was not called again: its outcome was copied, and its log says so.
    expect(tools.calls('echo') - callsBefore).toBe(1);
    await page.locator('[data-node="first"]').click();
    await page.getByTestId('node-log').getByText('replayed').waitFor();
    const logs = await allLogs(stack.apiUrl, replayId);
    expect(logs.find((item) => item.nodeId === 'first')).toMatchObject({ replayed: true });
    expect(await page.content()).not.toContain('s3cret');
  }, 90_000);

  it("groups a map's body executions by item, a map inside the body nested by index path", async () => {
    const echoEach = (id: string, items: string, body: { nodes: unknown[]; edges: unknown[] }) => ({
      id,
      type: 'map',
      config: { concurrency: 2, body },
      inputs: { items: { ref: items } },
    });
    const inner = {
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'echo', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { template: 'word {{start.item}}' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'echo.text' } } },
      ],
      edges: [
        { source: 'start', target: 'echo' },
        { source: 'echo', target: 'end' },
      ],
    };
    const workflowId = await createWorkflow(stack.apiUrl, {
      name: 'echo each word of each line',
      inputSchema: { type: 'object', properties: { lines: { type: 'array' } }, required: ['lines'] },
      nodes: [
        { id: 'start', type: 'start' },
        echoEach('lines', 'start.lines', {
          nodes: [
            { id: 'start', type: 'start' },
            echoEach('words', 'start.item', inner),
            { id: 'end', type: 'end', inputs: { results: { ref: 'words.results' } } },
          ],
          edges: [
            { source: 'start', target: 'words' },
            { source: 'words', target: 'end' },
          ],
        }),
        { id: 'end', type: 'end', inputs: { results: { ref: 'lines.results' } } },
      ],
      edges: [
        { source: 'start', target: 'lines' },
        { source: 'lines', target: 'end' },
      ],
    });
    const run = await runToEnd(stack.apiUrl, workflowId, { lines: [['alpha', 'beta'], ['gamma']] });
    expect(run.status).toBe('succeeded');
    const logs = await allLogs(stack.apiUrl, run.id);
    expect(logs.find((item) => item.nodeId === 'lines[0]/words[1]/echo')).toMatchObject({ itemPath: [0, 1] });

    const { page } = browser;
    await page.goto(`${stack.apiUrl}/ui/#/runs/${run.id}`);
    await page.locator('[data-node="lines"][data-state="succeeded"]').click();
    const log = page.getByTestId('node-log');
    await log.getByRole('heading', { name: 'Items (2)' }).waitFor();
    const item = (path: string) => log.locator(`[data-item-path="${path}"]`);
    await expect(item('0').locator(':scope > summary').textContent()).resolves.toMatch(/^item 0 · succeeded/);
    await expect(item('1').locator(':scope > summary').textContent()).resolves.toMatch(/^item 1 · succeeded/);
    // Item 0 of `lines` ran its own `words` map (itemPath [0]), whose items are nested under it: [0, 0] and [0, 1].
    await item('0').locator(':scope > [data-log-node="lines[0]/words"]').waitFor();
    await expect(item('0.1').locator('[data-log-node="lines[0]/words[1]/echo"]').textContent()).resolves.toContain('word beta');
    await expect(item('1.0').locator('[data-log-node="lines[1]/words[0]/echo"]').textContent()).resolves.toContain('word gamma');
    await expect(log.locator('[data-item-path]').count()).resolves.toBe(5);
    await item('1.0').scrollIntoViewIfNeeded();
    await screenshot(page, 'run-map-items');
    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 90_000);
});
