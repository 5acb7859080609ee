import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chromium } from 'playwright-core';
import { startStack, type TestStack } from '../support/stack.js';

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

describe('/docs in a real browser', () => {
  let stack: TestStack;
  let profile: string;

  beforeAll(async () => {
    stack = await startStack({}, { worker: false });
    profile = mkdtempSync(join(tmpdir(), 'mcpflow-chromium-'));
  }, 60_000);
  afterAll(async () => {
    await stack.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('renders the reference with every path, loading nothing from outside our origin', async () => {
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS, headless: true });
    try {
      const page = await context.newPage();
      const foreign: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(stack.apiUrl)) foreign.push(request.url());
      });
      await page.goto(`${stack.apiUrl}/docs`);
      await page.locator('.opblock-summary-path').first().waitFor({ timeout: 30_000 });
      const paths = await page.locator('.opblock-summary-path').allTextContents();
      mkdirSync('artifacts', { recursive: true });
      await page.screenshot({ path: 'artifacts/docs-page.png', fullPage: false });
      expect(paths.map((path) => path.replace(/\u200b/g, ''))).toEqual(
        expect.arrayContaining(['/toolsets', '/runs/{id}', '/workflows/{id}/runs', '/openapi.json']),
      );
      expect(foreign).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
