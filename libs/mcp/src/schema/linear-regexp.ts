/**
 * The regular-expression engine of every JSON Schema `pattern` and `patternProperties`: RE2
 * (re2js, a pure-JS port of RE2/J: no native build, no download) matches in time linear in the
 * input, so a pattern like `^(a+)+$` cannot block the event loop. RE2 has no backreferences or
 * lookarounds; such patterns are refused when the schema is compiled (`unsupportedPatternOf`).
 */
import { RE2JS } from 're2js';

/** What Ajv needs of a compiled pattern (`code.regExp`). */
export interface LinearRegExp {
  test(text: string): boolean;
  toString(): string;
}

/** Compiles an ECMAScript-syntax pattern on RE2; throws (with RE2's reason) when RE2 cannot run it. */
export function linearRegExp(pattern: string): LinearRegExp {
  const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern));
  return { test: (text) => compiled.test(text), toString: () => `/${pattern}/re2` };
}

/** Ajv's `code.regExp` option (the `u` flag is ignored: RE2 always reads Unicode). `code` names it in standalone code. */
export const linearRegExpEngine = Object.assign((pattern: string) => linearRegExp(pattern), { code: 'linearRegExp' });

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a keyword. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

export interface UnsupportedPattern {
  /** JSON pointer of the pattern inside the schema. */
  path: string;
  reason: string;
}

/** The first `pattern` / `patternProperties` key of a schema that RE2 cannot compile, with its path. */
export function unsupportedPatternOf(schema: unknown, path = ''): UnsupportedPattern | undefined {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const found = unsupportedPatternOf(item, `${path}/${index}`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const patterns = key === 'pattern' && typeof value === 'string' ? [[at, value]] : [];
    if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
      patterns.push(...Object.keys(value).map((name) => [`${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`, name]));
    }
    for (const [where, pattern] of patterns) {
      const reason = compileError(pattern);
      if (reason) return { path: where, reason: `pattern ${JSON.stringify(pattern)} is not supported (${reason})` };
    }
    const found = unsupportedPatternOf(value, at);
    if (found) return found;
  }
  return undefined;
}

function compileError(pattern: string): string | undefined {
  try {
    linearRegExp(pattern);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
