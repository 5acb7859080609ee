import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';

/**
 * The walkthroughs in README.md and docs/*.md stay runnable: every curl they show against
 * `$API_URL` names a route (method + path template) that docs/openapi.json describes.
 */
const root = new URL('../../../../', import.meta.url);

interface CurlCall {
  file: string;
  method: string;
  path: string;
}

function pagesWithWalkthroughs(): string[] {
  const docs = readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Shell blocks of a Markdown page, their continuation lines joined into one command line each. */
function shellCommands(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/```(?:bash|sh)\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks.flatMap((block) => block.replace(/\\\n/g, ' ').split('\n'));
}

function curlCalls(file: string): CurlCall[] {
  const calls: CurlCall[] = [];
  for (const command of shellCommands(readFileSync(new URL(file, root), 'utf8'))) {
    for (const curl of command.split(/(?=\bcurl\s)/).filter((part) => part.startsWith('curl'))) {
      const url = /"?\$API_URL(\/[^"\s]*)"?/.exec(curl);
      if (!url) continue;
      const explicit = /\s-X\s+([A-Z]+)/.exec(curl)?.[1];
      const method = explicit ?? (/\s-d\s/.test(curl) ? 'POST' : 'GET');
      calls.push({ file, method: method.toLowerCase(), path: url[1].split('?')[0] });
    }
  }
  return calls;
}

/** A documented path as a pattern: `{id}` matches one segment, whatever a walkthrough puts there. */
function routePatterns(): Array<{ method: string; pattern: RegExp; template: string }> {
  const document = JSON.parse(readFileSync(new URL('docs/openapi.json', root), 'utf8')) as { paths: Record<string, object> };
  return Object.entries(document.paths).flatMap(([template, operations]) =>
    Object.keys(operations).map((method) => ({
      method,
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    })),
  );
}

describe('the walkthroughs of README.md and docs/', () => {
  const calls = pagesWithWalkthroughs().flatMap(curlCalls);
  const routes = routePatterns();

  it('show curl calls of the API (the extraction finds them)', () => {
    expect(calls.length).toBeGreaterThan(40);
    expect(new Set(calls.map((call) => call.file))).toContain('README.md');
  });

  it('call only routes that docs/openapi.json describes (method and path template)', () => {
    const unknown = calls.filter((call) => !routes.some((route) => route.method === call.method && route.pattern.test(call.path)));
    expect(unknown).toEqual([]);
  });
});
