import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { basicTools, greetTool, startFixtureServer, type FixtureServer } from '#mcp/testing';
import type { RunView } from '#workflow/nest';
import { api } from '../support/http.js';
import { allLogs, createWorkflow, registerToolset, runToEnd } from '../support/runs.js';
import { startStack, type TestStack } from '../support/stack.js';
import { openBrowser, screenshot, seriousAxeViolations, signIn, type ConsoleBrowser } from './console-browser.js';

/** The web console (apps/web, served under /ui) in real headless Chromium against the real stack. */
describe('web console in a real browser', () => {
  let stack: TestStack;
  let tools: FixtureServer;
  let browser: ConsoleBrowser;
  let key: string;
  const workflows: Record<string, string> = {};
  let toolsetId: string;

  beforeAll(async () => {
    stack = await startStack();
    tools = await startFixtureServer({ tools: [...basicTools(), greetTool] });
    toolsetId = await registerToolset(stack.apiUrl, tools.url, 'fixture tools');
    workflows.echo = await createWorkflow(stack.apiUrl, {
      name: 'echo twice',
      description: 'Echoes a message through two tool calls',
      inputSchema: {
        type: 'object',
        properties: { message: { type: 'string', title: 'Message' }, token: { type: 'string', writeOnly: true, title: 'Token' } },
        required: ['message'],
      },
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'first', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'start.message' } } },
        { id: 'second', type: 'mcpTool', config: { toolsetId, tool: 'echo' }, inputs: { message: { ref: 'first.text' } } },
        { id: 'end', type: 'end', inputs: { said: { ref: 'second.text' } } },
      ],
      edges: [
        { source: 'start', target: 'first' },
        { source: 'first', target: 'second' },
        { source: 'second', target: 'end' },
      ],
    });
    workflows.greet = await createWorkflow(stack.apiUrl, {
      name: 'ask who to greet',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'greet', type: 'mcpTool', config: { toolsetId, tool: 'greet', elicitation: 'pause' }, inputs: {} },
        { id: 'end', type: 'end', inputs: { said: { ref: 'greet.text' } } },
      ],
      edges: [
        { source: 'start', target: 'greet' },
        { source: 'greet', target: 'end' },
      ],
    });
    workflows.fail = await createWorkflow(stack.apiUrl, {
      name: 'always fails',
      nodes: [
        { id: 'start', type: 'start' },
        { id: 'boom', type: 'mcpTool', config: { toolsetId, tool: 'fail' }, inputs: { reason: { value: 'disk full' } } },
        { id: 'end', type: 'end', inputs: {} },
      ],
      edges: [
        { source: 'start', target: 'boom' },
        { source: 'boom', target: 'end' },
      ],
    });
    // The console is used with a key of its own, as a person would: read, run and edit workflows, nothing more.
    const created = await api<{ key: string }>(stack.apiUrl, 'POST', '/api-keys', {
      name: 'console test',
      scopes: ['read', 'run', 'write'],
    });
    expect(created.status).toBe(201);
    key = created.body.key;
    browser = await openBrowser(stack.apiUrl);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await tools?.close();
    await stack?.close();
  });

  it('serves the page with a strict CSP, and asks for a key before anything else', async () => {
    const page = await fetch(`${stack.apiUrl}/ui/`);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(await page.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    await browser.page.goto(`${stack.apiUrl}/ui/`);
    await browser.page.getByLabel('API key').fill('mcpf_not-a-key');
    await browser.page.getByRole('button', { name: 'Open the console' }).click();
    await expect(browser.page.getByRole('alert').textContent()).resolves.toContain('UNAUTHENTICATED');
    await screenshot(browser.page, 'sign-in-refused');
  }, 60_000);

  it('runs a workflow from its form and watches every node turn green; a node log shows the MCP call', async () => {
    const { page } = browser;
    await signIn(page, stack.apiUrl, key);
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('link', { name: 'echo twice' }).click();
    await page.getByLabel('Message').fill('hello from the console');
    await expect(page.getByLabel('Token').getAttribute('type')).resolves.toBe('password');
    await page.getByLabel('Token').fill('s3cret-token');
    await screenshot(page, 'workflow');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/#\/runs\/[0-9a-f]{24}$/);
    for (const node of ['start', 'first', 'second', 'end'])
      await page.locator(`[data-node="${node}"][data-state="succeeded"]`).waitFor({ timeout: 30_000 });
    await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor();
    const runId = page.url().split('/').at(-1) as string;
    const run = (await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`)).body;
    expect(run).toMatchObject({ status: 'succeeded', outputs: { said: 'hello from the console' }, inputs: { token: '***' } });

    await page.locator('[data-node="second"]').click();
    const log = page.getByTestId('node-log');
    await log.getByText('streamable-http').waitFor();
    await expect(log.textContent()).resolves.toContain('hello from the console');
    await screenshot(page, 'run-succeeded');
    expect(await page.content()).not.toContain('s3cret-token');

    // First render of a run page, opened afresh: from navigation to every node shown in its final state.
    // Timed in the page (performance.now() counts from the navigation's start), with where the time went.
    await page.goto('about:blank');
    await page.goto(`${stack.apiUrl}/ui/#/runs/${runId}`);
    const rendered = await page.waitForFunction(() => {
      const view = globalThis as unknown as { document: { querySelector(selector: string): unknown }; performance: { now(): number } };
      return view.document.querySelector('[data-node="end"][data-state="succeeded"]') && view.performance.now();
    });
    const resources = (await page.evaluate(
      'performance.getEntriesByType("resource").map((entry) => `${new URL(entry.name).pathname.replace(/[0-9a-f]{24}/, ":id")} ${Math.round(entry.startTime)}→${Math.round(entry.responseEnd)}`)',
    )) as string[];
    console.log(
      `web console: first render of a finished run page ${Math.round(Number(await rendered.jsonValue()))} ms from navigation (budget 1000 ms); ${resources.join(', ')}`,
    );

    expect(await seriousAxeViolations(page)).toEqual([]);
  }, 90_000);

  it('answers a waiting run from the form generated from requestedSchema', async () => {
    const { page } = browser;
    await page.goto(`${stack.apiUrl}/ui/#/workflows/${workflows.greet}`);
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const request = page.getByTestId('input-request');
    await request.getByText('Who should be greeted?').waitFor({ timeout: 30_000 });
    await page.locator('[data-node="greet"][data-state="waiting"]').waitFor();
    await screenshot(page, 'run-waiting');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await expect(request.getByLabel('name').inputValue()).resolves.toBe('Ada');
    await request.getByLabel('name').fill('Lin');
    await request.getByLabel('times').fill('2');
    await request.getByRole('button', { name: 'Send answer' }).click();
    await page.locator('[data-node="end"][data-state="succeeded"]').waitFor({ timeout: 30_000 });
    // The end node's log item can arrive a moment before the run is marked finished.
    await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor();
    const runId = page.url().split('/').at(-1) as string;
    expect((await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`)).body.outputs).toEqual({ said: 'Hello LinHello Lin' });
    await page.locator('[data-node="greet"]').click();
    await page.getByTestId('node-log').getByText('INPUT_REQUIRED').waitFor();
    await screenshot(page, 'run-answered');
  }, 90_000);

  it('shows the error code of a failed node, and the runs list filters by status', async () => {
    const { page } = browser;
    const failed = await runToEnd(stack.apiUrl, workflows.fail);
    expect(failed.status).toBe('failed');
    const boom = (await allLogs(stack.apiUrl, failed.id)).find((item) => item.nodeId === 'boom');
    const code = boom?.error?.code as string;
    expect(code).toMatch(/^[A-Z_]+$/);

    await page.goto(`${stack.apiUrl}/ui/#/runs`);
    await page.getByLabel('Status').selectOption('failed');
    // The list answered before the filter stays on screen until the filtered answer arrives.
    // A function, not a string: the console's CSP forbids eval, which a string expression needs.
    // (Serialized into the page: everything it uses is inside it.)
    await page.waitForFunction(
      () => {
        const view = globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } };
        return view.document.querySelectorAll('tbody tr').length === 1;
      },
      undefined,
      { timeout: 30_000 },
    );
    await page.locator(`[data-run="${failed.id}"]`).waitFor();
    await screenshot(page, 'runs-failed');
    await page.locator(`[data-run="${failed.id}"] a`).click();
    await page.locator('[data-node="boom"][data-state="failed"]').waitFor({ timeout: 30_000 });
    await page.locator('.react-flow__node').filter({ hasText: code }).waitFor();
    await page.locator('[data-node="boom"]').click();
    await page.getByTestId('node-log').getByTestId('error-code').filter({ hasText: code }).waitFor();
    await page.getByRole('button', { name: 'Retry' }).waitFor();
    await screenshot(page, 'run-failed');
  }, 90_000);

  it('builds a workflow in the editor: palette, config form, per-input form, connections, problems on the node, save, run', async () => {
    const { page } = browser;
    await page.goto(`${stack.apiUrl}/ui/#/workflows`);
    await page.getByRole('link', { name: 'New workflow' }).click();
    await page.getByLabel('Workflow name').fill('made in the editor');
    await page.locator('.input-schema summary').click();
    await page
      .getByLabel('Run inputs (JSON Schema)')
      .fill('{"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}');
    await page.getByRole('button', { name: 'Apply run inputs' }).click();
    await page.getByRole('navigation', { name: 'Node types' }).getByRole('button', { name: '+ MCP tool' }).click();
    const panel = page.getByTestId('node-panel');
    await panel.getByText('mcpTool1').waitFor();
    // Saved as it is, the new node is incomplete: the API's problems land on it.
    await page.getByRole('button', { name: 'Check' }).click();
    await page.locator('.react-flow__node[data-id="mcpTool1"]').getByTestId('node-problem').first().waitFor();

    // One connection dragged from handle to handle, one made with the keyboard-friendly form.
    await page
      .locator('.react-flow__node[data-id="start"] .react-flow__handle.source')
      .dragTo(page.locator('.react-flow__node[data-id="mcpTool1"] .react-flow__handle.target'));
    await page.locator('.react-flow__edge').first().waitFor();
    const connect = page.getByRole('form', { name: 'Connect nodes' });
    await connect.getByLabel('From').selectOption('mcpTool1:out');
    await connect.getByLabel('To').selectOption('end');
    await connect.getByRole('button', { name: 'Connect' }).click();
    await expect(page.locator('.react-flow__edge').count()).resolves.toBe(2);

    // The tool's inputSchema becomes one field per input: `a` from start (a reference), `b` a typed literal.
    await page.locator('.react-flow__node[data-id="mcpTool1"]').click();
    await panel.getByLabel('toolsetId').selectOption({ label: 'fixture tools' });
    await panel.getByLabel(/^tool( \*)?$/).fill('add');
    await panel.getByRole('button', { name: 'Apply config' }).click();
    const a = panel.getByRole('group', { name: 'a number, required' });
    const b = panel.getByRole('group', { name: 'b number, required' });
    await a.getByLabel('Source').selectOption('ref');
    await expect(a.getByLabel('Reference').inputValue()).resolves.toBe('start.a');
    await expect(a.getByLabel('Reference').locator('option').allTextContents()).resolves.toEqual(['start.a (number)']);
    await b.getByLabel('Source').selectOption('value');
    await expect(b.getByLabel('Value').getAttribute('type')).resolves.toBe('number');
    await b.getByLabel('Value').fill('5');

    // The end takes any inputs: the raw JSON editor, with the references the nodes before it offer.
    await page.locator('.react-flow__node[data-id="end"]').click();
    await panel.getByText('References from earlier nodes: start.a, mcpTool1.result, mcpTool1.text').waitFor();
    await panel.getByLabel(/^Inputs/).fill('{"sum": {"ref": "mcpTool1.result.sum"}}');
    await panel.getByRole('button', { name: 'Apply inputs' }).click();
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByText('No problems found.').waitFor();
    await page.locator('.react-flow__node[data-id="mcpTool1"]').click();
    await a.scrollIntoViewIfNeeded();
    await screenshot(page, 'editor');
    expect(await seriousAxeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Create workflow' }).click();
    await page.waitForURL(/#\/workflows\/[0-9a-f]{24}$/);
    const workflowId = page.url().split('/').at(-1) as string;
    const saved = await api<{ nodes: { id: string; inputs: unknown }[] }>(stack.apiUrl, 'GET', `/workflows/${workflowId}`);
    expect(saved.body.nodes.find((node) => node.id === 'mcpTool1')?.inputs).toEqual({ a: { ref: 'start.a' }, b: { value: 5 } });
    await page.getByLabel(/^a( \*)?$/).fill('37');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.locator('[data-node="end"][data-state="succeeded"]').waitFor({ timeout: 30_000 });
    // The end node's log item can arrive a moment before the run is marked finished.
    await page.getByTestId('run-status').filter({ hasText: 'succeeded' }).waitFor();
    const runId = page.url().split('/').at(-1) as string;
    expect((await api<RunView>(stack.apiUrl, 'GET', `/runs/${runId}`)).body.outputs).toEqual({ sum: 42 });
  }, 90_000);

  it('fits a phone-width screen, loads nothing from another origin and breaks no CSP rule', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${stack.apiUrl}/ui/#/runs`);
    await page.locator('tbody tr').first().waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'runs-phone');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.locator('tbody tr a').first().click();
    await page.locator('[data-node="start"]').waitFor();
    await screenshot(page, 'run-phone');
    expect(browser.foreign).toEqual([]);
    expect(browser.consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
  }, 60_000);
});
