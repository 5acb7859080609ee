/**
 * JSON Schema validation with the Ajv class the schema's `$schema` names. MCP servers publish
 * draft-07 (zod-to-json-schema, older pydantic) beside 2020-12 (the MCP default); one Ajv for
 * both would misread `items`/`definitions`. Compiling never throws: a schema that cannot
 * compile yields its reason. `$ref`s resolve inside the schema only — nothing is fetched.
 */
import { Ajv, type ErrorObject, type Options as AjvOptions } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ArgumentError } from '../errors.js';
import type { JsonSchema } from '../types.js';
import { linearRegExpEngine, unsupportedPatternOf } from './linear-regexp.js';

export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

export type CompiledSchema =
  | { ok: true; dialect: SchemaDialect; validate: (data: unknown) => ArgumentError[] }
  /** `path`: JSON pointer inside the schema of the part that does not compile, when known. */
  | { ok: false; dialect: SchemaDialect; reason: string; path?: string };

type AjvInstance = Ajv | Ajv2019 | Ajv2020;

// Patterns run on RE2 (linear time): a schema's `pattern` must not be able to block the event loop.
const AJV_OPTIONS: AjvOptions = { strict: false, allErrors: true, code: { regExp: linearRegExpEngine } };
/** Compiled schemas kept for reuse; beyond this the oldest is dropped (a long-lived worker sees many). */
const CACHE_LIMIT = 500;

const instances = new Map<SchemaDialect, AjvInstance>();
const cache = new Map<string, CompiledSchema>();

/** No `$schema` means 2020-12 (the MCP default); drafts 04–07 are read as draft-07. */
export function dialectOf(schema: JsonSchema): SchemaDialect {
  const declared = typeof schema === 'object' ? schema.$schema : undefined;
  if (typeof declared !== 'string') return '2020-12';
  if (/draft-0[4-7]\b/.test(declared)) return 'draft-07';
  if (declared.includes('2019-09')) return '2019-09';
  return '2020-12';
}

export function compileSchema(schema: JsonSchema): CompiledSchema {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = compileUncached(schema);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

function compileUncached(schema: JsonSchema): CompiledSchema {
  const dialect = dialectOf(schema);
  const ajv = ajvFor(dialect);
  // The dialect is already chosen; a `$schema` URL variant Ajv does not know (https, no '#')
  // would otherwise fail the compile.
  const body = typeof schema === 'object' ? withoutKey(schema, '$schema') : schema;
  const unsupported = unsupportedPatternOf(body);
  if (unsupported) return { ok: false, dialect, reason: unsupported.reason, path: unsupported.path };
  try {
    const validateFn = ajv.compile(body);
    return {
      ok: true,
      dialect,
      validate: (data) => (validateFn(data) ? [] : toArgumentErrors(validateFn.errors ?? [])),
    };
  } catch (error) {
    return { ok: false, dialect, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    // Our cache holds the compiled function; Ajv's own registry would grow forever and reject a
    // second schema that reuses an `$id`.
    ajv.removeSchema(body);
  }
}

function ajvFor(dialect: SchemaDialect): AjvInstance {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = dialect === 'draft-07' ? new Ajv(AJV_OPTIONS) : dialect === '2019-09' ? new Ajv2019(AJV_OPTIONS) : new Ajv2020(AJV_OPTIONS);
    addFormats.default(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

function withoutKey(schema: Record<string, unknown>, key: string): Record<string, unknown> {
  if (!(key in schema)) return schema;
  const copy = { ...schema };
  delete copy[key];
  return copy;
}

function toArgumentErrors(errors: ErrorObject[]): ArgumentError[] {
  return errors.map((error) => {
    const segments = error.instancePath.split('/').slice(1).map(unescapePointer);
    const extra = error.params.missingProperty ?? error.params.additionalProperty;
    if (typeof extra === 'string') segments.push(extra);
    const path = formatPath(segments);
    const allowed = Array.isArray(error.params.allowedValues)
      ? `: ${error.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : '';
    return { path, message: `${error.message ?? 'is invalid'}${allowed}` };
  });
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `['items', '0', 'name']` → `items[0].name`; keys that are not identifiers are quoted. */
export function formatPath(segments: string[]): string {
  return segments.reduce((path, segment) => {
    if (/^\d+$/.test(segment)) return `${path}[${segment}]`;
    if (/^[A-Za-z_$][\w$]*$/.test(segment)) return path ? `${path}.${segment}` : segment;
    return `${path}[${JSON.stringify(segment)}]`;
  }, '');
}
