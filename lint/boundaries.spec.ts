import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

/**
 * The boundaries of eslint.config.js, proven: each file of lint/fixtures/ is linted as if it stood
 * at the path its `// lint as:` line names, and lint must refuse it with the rule its
 * `// refused by:` line names (allowed-*.ts: lint must let it through).
 */
const root = new URL('../', import.meta.url);
const fixtures = new URL('fixtures/', import.meta.url);

interface Fixture {
  file: string;
  text: string;
  lintAs: string[];
  refusedBy: string | undefined;
}

function fixtureFiles(): Fixture[] {
  return readdirSync(fixtures)
    .filter((file) => file.endsWith('.ts'))
    .map((file) => {
      const text = readFileSync(new URL(file, fixtures), 'utf8');
      const lintAs = [...text.matchAll(/^\/\/ lint as: (\S+)$/gm)].map((match) => match[1]);
      const refusedBy = /^\/\/ refused by: ([a-z-]+)/m.exec(text)?.[1];
      return { file, text, lintAs, refusedBy };
    });
}

async function restrictedImportMessages(text: string, filePath: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root.pathname });
  const [result] = await eslint.lintText(text, { filePath, warnIgnored: true });
  const ignored = result.messages.find((message) => message.ruleId === null && /ignored/i.test(message.message));
  if (ignored) throw new Error(`${filePath} is ignored by the lint configuration: ${ignored.message}`);
  return result.messages
    .filter((message) => message.ruleId === 'no-restricted-imports' || message.ruleId === '@typescript-eslint/no-restricted-imports')
    .map((message) => message.message);
}

describe('the import boundaries of eslint.config.js', () => {
  const all = fixtureFiles();
  const refused = all.filter((fixture) => fixture.refusedBy);

  it('have a fixture per rule, each saying where it is linted', () => {
    expect(all.every((fixture) => fixture.lintAs.length > 0)).toBe(true);
    expect(new Set(refused.map((fixture) => fixture.refusedBy))).toEqual(
      new Set(['engine-is-pure', 'nodes-are-pure', 'persistence-is-below', 'mcp-stands-alone', 'apps-above-the-store', 'one-queue-owner']),
    );
  });

  it.each(refused.map((fixture) => [fixture.file, fixture] as const))('refuse %s', async (_file, fixture) => {
    const messages = await restrictedImportMessages(fixture.text, fixture.lintAs[0]);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.filter((message) => !message.includes(`[${fixture.refusedBy}]`))).toEqual([]);
  });

  it('let through what each room may import', async () => {
    for (const fixture of all.filter((candidate) => !candidate.refusedBy)) {
      for (const path of fixture.lintAs) expect(await restrictedImportMessages(fixture.text, path)).toEqual([]);
    }
  });
});
