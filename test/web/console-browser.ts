import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (scripts/test.sh installs it when missing); flags from the machine notes. */
const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = 'test/web/screenshots';

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** Requests that left the API's origin, and what the console logged as errors (CSP violations among them). */
  foreign: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

/** A fresh Chromium profile on one page, watching where it connects and what it complains about. */
export async function openBrowser(apiUrl: string, viewport = { width: 1280, height: 800 }): Promise<ConsoleBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'mcpflow-console-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, headless: true, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(apiUrl) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    foreign,
    consoleErrors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the console and pastes the key, as a person does. */
export async function signIn(page: Page, apiUrl: string, key: string): Promise<void> {
  await page.goto(`${apiUrl}/ui/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's WCAG 2 A/AA rules on the page as it is. The source goes in through the DevTools
 * protocol (page.evaluate of its text), not a script tag or eval: the console's CSP refuses both, as it should.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> } })
      .axe;
    const result = await axe.run({ exclude: [] }, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map(({ id, impact, help, nodes }) => ({ id, impact, help, nodes: nodes.map(({ target }) => ({ target })) }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}
