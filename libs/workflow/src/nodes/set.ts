import type { ConfigValueSource, JsonSchema, NodeDefinition, NodeExecutor, ValidationIssue, ValueSource } from '../engine/types.js';
import { parsePickPath, readPick, type PickSegment } from './set/pick-path.js';

interface SetField {
  /** Position in `config.fields` (paths of problems found later point at it). */
  index: number;
  /** Dotted key in the result (`customer.email` builds `{customer: {email}}`). */
  key: string[];
  source: ValueSource;
  pick?: PickSegment[];
}

interface SetConfig {
  base?: ValueSource;
  fields: SetField[];
}

/** Keys that would reach an object's prototype instead of the object. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);
const KEY_SEGMENT = /^[^.[\]]+$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValueSource(value: unknown): value is ValueSource {
  return (
    isRecord(value) &&
    Object.keys(value).length === 1 &&
    ('value' in value || typeof value.ref === 'string' || typeof value.template === 'string')
  );
}

function readKey(raw: unknown, path: string, issues: ValidationIssue[]): string[] {
  const segments = typeof raw === 'string' ? raw.split('.') : [];
  if (segments.length === 0 || segments.some((segment) => !KEY_SEGMENT.test(segment))) {
    issues.push({ path, code: 'INVALID_CONFIG', message: 'key must be a non-empty name, dotted for nesting (e.g. "customer.email")' });
    return [];
  }
  const forbidden = segments.find((segment) => FORBIDDEN_KEYS.has(segment));
  if (forbidden) issues.push({ path, code: 'INVALID_CONFIG', message: `key segment "${forbidden}" is not allowed` });
  return segments;
}

/** `a` and `a.b` cannot both be set: one would overwrite the other. */
function isPrefixEither(one: readonly string[], other: readonly string[]): boolean {
  const length = Math.min(one.length, other.length);
  return one.slice(0, length).every((segment, index) => segment === other[index]);
}

function checkOverlaps(fields: SetField[], nodePath: string, issues: ValidationIssue[]): void {
  const seen: string[][] = [];
  fields.forEach((field) => {
    const clash = seen.find((other) => other.length > 0 && field.key.length > 0 && isPrefixEither(other, field.key));
    if (clash) {
      issues.push({
        path: `${nodePath}/config/fields/${field.index}/key`,
        code: 'INVALID_CONFIG',
        message: `key "${field.key.join('.')}" overlaps key "${clash.join('.')}"`,
      });
    }
    seen.push(field.key);
  });
}

function readConfig(node: NodeDefinition, nodePath: string): { config: SetConfig; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const raw = node.config ?? {};
  for (const key of Object.keys(raw)) {
    if (key !== 'fields' && key !== 'base')
      issues.push({ path: `${nodePath}/config/${key}`, code: 'INVALID_CONFIG', message: `unknown config field "${key}"` });
  }
  let base: ValueSource | undefined;
  if (raw.base !== undefined) {
    if (isValueSource(raw.base)) base = raw.base;
    else
      issues.push({
        path: `${nodePath}/config/base`,
        code: 'INVALID_CONFIG',
        message: 'base must be a value source ({value}, {ref} or {template})',
      });
  }
  if (!Array.isArray(raw.fields) || raw.fields.length === 0) {
    issues.push({ path: `${nodePath}/config/fields`, code: 'INVALID_CONFIG', message: 'set needs a non-empty fields[] list' });
    return { config: { base, fields: [] }, issues };
  }
  const fields = raw.fields.flatMap((item: unknown, index): SetField[] => {
    const path = `${nodePath}/config/fields/${index}`;
    if (!isRecord(item)) {
      issues.push({ path, code: 'INVALID_CONFIG', message: 'a field is {key, source, pick?}' });
      return [];
    }
    for (const extra of Object.keys(item).filter((name) => !['key', 'source', 'pick'].includes(name))) {
      issues.push({ path: `${path}/${extra}`, code: 'INVALID_CONFIG', message: `unknown field property "${extra}"` });
    }
    const key = readKey(item.key, `${path}/key`, issues);
    if (!isValueSource(item.source)) {
      issues.push({
        path: `${path}/source`,
        code: 'INVALID_CONFIG',
        message: 'source must be a value source ({value}, {ref} or {template})',
      });
      return [];
    }
    let pick: PickSegment[] | undefined;
    if (item.pick !== undefined) {
      const parsed = typeof item.pick === 'string' ? parsePickPath(item.pick) : { error: 'pick must be a string' };
      if ('error' in parsed) issues.push({ path: `${path}/pick`, code: 'INVALID_CONFIG', message: parsed.error });
      else pick = parsed.segments;
    }
    return [{ index, key, source: item.source, pick }];
  });
  checkOverlaps(fields, nodePath, issues);
  return { config: { base, fields }, issues };
}

/** Sets `value` at `key` inside `target`, making the objects on the way (a non-object on the way is replaced). */
function assign(target: Record<string, unknown>, key: readonly string[], value: unknown): void {
  let current = target;
  for (const segment of key.slice(0, -1)) {
    const next = Object.hasOwn(current, segment) ? current[segment] : undefined;
    if (!isRecord(next)) current[segment] = {};
    current = current[segment] as Record<string, unknown>;
  }
  current[key[key.length - 1]] = value;
}

/** A deep copy of JSON data, so that editing a base never changes an upstream node's outputs. */
function copyJson(value: unknown): unknown {
  return value === undefined ? undefined : structuredClone(value);
}

const VALUE_SOURCE_SCHEMA: JsonSchema = {
  oneOf: [
    { type: 'object', required: ['value'], properties: { value: {} }, additionalProperties: false },
    { type: 'object', required: ['ref'], properties: { ref: { type: 'string' } }, additionalProperties: false },
    { type: 'object', required: ['template'], properties: { template: { type: 'string' } }, additionalProperties: false },
  ],
};

const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['fields'],
  additionalProperties: false,
  properties: {
    base: { ...(VALUE_SOURCE_SCHEMA as object), description: 'An object to start from (copied); fields are set on top of it.' },
    fields: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['key', 'source'],
        additionalProperties: false,
        properties: {
          key: { type: 'string', description: 'Where the value goes in `result`; dots nest (`customer.email`).' },
          source: VALUE_SOURCE_SCHEMA,
          pick: { type: 'string', description: 'A path read from the source value: `a.b`, `[0]`, `[-1]`, `[*]` (every element).' },
        },
      },
    },
  },
};

const RESULT_OUTPUT = {
  key: 'result',
  label: 'Result',
  description: 'the object built from the fields',
  valueType: 'object',
  required: false,
  schema: { type: 'object' },
} as const;

/**
 * Shapes data without code: builds `result` from value sources (`{ref}`, `{template}`, `{value}`),
 * each optionally narrowed by a JSONPath-like `pick`, on top of an optional `base` object.
 */
export const setNode: NodeExecutor = {
  type: 'set',
  pure: true,
  describeType: () => ({
    title: 'Set fields',
    description: 'Builds an object from references, templates and literals, with JSONPath-like picks (`items[*].id`).',
    configSchema: CONFIG_SCHEMA,
    handles: ['out'],
    inputs: [],
    outputs: [{ ...RESULT_OUTPUT }],
  }),
  validate: async ({ node, nodePath }) => readConfig(node, nodePath).issues,
  describeInputs: async () => [],
  describeOutputs: async () => [{ ...RESULT_OUTPUT }],
  configValueSources: (node) => {
    const { config } = readConfig(node, '');
    const sources: ConfigValueSource[] = config.base ? [{ path: '/config/base', source: config.base }] : [];
    config.fields.forEach((field) => sources.push({ path: `/config/fields/${field.index}/source`, source: field.source }));
    return sources;
  },
  execute: async ({ node, resolveValue }) => {
    if (!resolveValue) throw new Error('set nodes need the engine to resolve their value sources');
    const { config } = readConfig(node, '');
    const base = config.base === undefined ? undefined : copyJson(resolveValue(config.base));
    const result: Record<string, unknown> = isRecord(base) ? base : {};
    for (const field of config.fields) {
      const value = copyJson(resolveValue(field.source));
      const picked = field.pick ? readPick(value, field.pick) : value;
      if (picked !== undefined) assign(result, field.key, picked);
    }
    return { outputs: { result } };
  },
};
