import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Response } from 'express';

/** Where the console is served: its static files are public documents; every API call it makes carries a key. */
export const CONSOLE_PATH = '/ui';

/**
 * Only this origin's own files run, and only this origin is called: no inline script or style
 * element, no eval, no framing. React sets styles through the CSSOM, which style-src does not
 * govern, so React Flow works without 'unsafe-inline'.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The built console (`vite build` → dist/web), found from the repository root in source and in dist alike. */
export function consoleDirectory(): string | undefined {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
  const built = join(directory, 'dist', 'web');
  return existsSync(join(built, 'index.html')) ? built : undefined;
}

function setHeaders(res: Response, path: string): void {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  // Hashed file names change with their content; the page itself is checked on every load.
  res.setHeader('cache-control', path.endsWith('.html') ? 'no-cache' : 'public, max-age=31536000, immutable');
}

/** Serves the console under /ui when it was built; without a build the API runs as before (and says so once). */
export function serveConsole(app: NestExpressApplication, warn: (message: string) => void): void {
  const directory = consoleDirectory();
  if (!directory) {
    warn(`The web console is not built (npm run build): ${CONSOLE_PATH} is not served`);
    return;
  }
  app.useStaticAssets(directory, { prefix: `${CONSOLE_PATH}/`, index: 'index.html', setHeaders, fallthrough: true });
}
