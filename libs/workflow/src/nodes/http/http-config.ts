import type {
  ConfigValueSource,
  JsonSchema,
  NodeDefinition,
  SecretConfigValue,
  ValidationIssue,
  ValueSource,
  WorkflowDefinition,
} from '../../engine/types.js';
import { CROSS_ORIGIN_SAFE_HEADERS, originOf } from '#mcp';
import { pointerSegment } from '../../engine/node-secrets.js';
import { secretInputKeys } from '../../engine/secret-inputs.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export const BODY_TYPES = ['json', 'text', 'form'] as const;

export const HTTP_LIMITS = {
  timeoutMs: { default: 30_000, max: 300_000 },
  retries: { default: 2, max: 5 },
  backoffMs: { default: 500, max: 30_000 },
  maxResponseBytes: { default: 5 * 1024 * 1024, max: 50 * 1024 * 1024 },
} as const;

export interface HttpConfig {
  method: (typeof HTTP_METHODS)[number];
  url: string;
  query: Record<string, string>;
  /** Templates; `{secret}`: a literal value sealed by the workflow store (`"***"` in the stored definition). */
  headers: Record<string, HeaderValue>;
  body?: { type: (typeof BODY_TYPES)[number]; value: ValueSource };
  timeoutMs: number;
  failOnStatus: boolean;
  retries: number;
  backoffMs: number;
  maxResponseBytes: number;
}

export type HeaderValue = string | { secret: string };

/** `{{inputs.name}}`: a secret run input (as in toolset headers), filled only when the request is sent. */
export const SECRET_PLACEHOLDER = /\{\{\s*inputs\.([A-Za-z_$][\w$-]*)\s*\}\}/g;
/** Header names that carry credentials: their values may hold no literal secret, only placeholders. */
const CREDENTIAL_HEADER = /authorization|cookie|token|secret|password|api[-_]?key|^x-.*key$/i;
const SCHEME_WORD = /^\s*(Bearer|Basic|Token|Bot|Digest)?\s*$/i;
const KNOWN_KEYS = ['method', 'url', 'query', 'headers', 'body', 'timeoutMs', 'failOnStatus', 'retries', 'backoffMs', 'maxResponseBytes'];

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

function readStrings(raw: unknown, path: string, issues: ValidationIssue[]): Record<string, string> {
  if (raw === undefined) return {};
  if (!isRecord(raw) || Object.values(raw).some((value) => typeof value !== 'string')) {
    issues.push({ path, code: 'INVALID_CONFIG', message: 'must be an object of strings (templates)' });
    return {};
  }
  return raw as Record<string, string>;
}

export function isSealedHeader(value: HeaderValue): value is { secret: string } {
  return typeof value === 'object';
}

function readHeaders(raw: unknown, path: string, issues: ValidationIssue[]): Record<string, HeaderValue> {
  if (raw === undefined) return {};
  const isSecret = (value: unknown) =>
    isRecord(value) && Object.keys(value).length === 1 && typeof value.secret === 'string' && value.secret !== '';
  if (!isRecord(raw) || Object.values(raw).some((value) => typeof value !== 'string' && !isSecret(value))) {
    issues.push({ path, code: 'INVALID_CONFIG', message: 'must be an object of templates or {"secret": "<value>"}' });
    return {};
  }
  return raw as Record<string, HeaderValue>;
}

/**
 * The URL up to its first template, when that part fixes the origin (scheme, host and port end
 * before any `{{`): what a sealed header is bound to. Undefined when a template could change the origin.
 */
export function fixedOriginUrl(url: string): string | undefined {
  const at = url.indexOf('{{');
  const fixed = at === -1 ? url : url.slice(0, at);
  if (at !== -1 && !/^[a-z][a-z\d+.-]*:\/\/[^/?#{}]*[/?#]/i.test(fixed)) return undefined;
  const origin = originOf(fixed);
  return origin === undefined || origin === 'null' ? undefined : fixed;
}

function readInteger(raw: unknown, path: string, limit: { default: number; max: number }, min: number, issues: ValidationIssue[]): number {
  if (raw === undefined) return limit.default;
  if (Number.isInteger(raw) && (raw as number) >= min && (raw as number) <= limit.max) return raw as number;
  issues.push({ path, code: 'INVALID_CONFIG', message: `must be an integer from ${min} to ${limit.max}` });
  return limit.default;
}

/** Sealed headers are bound to the url's origin: it must be fixed (a url that is no URL at all is reported already). */
function checkSealedHeaders(names: string[], url: unknown, path: string, issues: ValidationIssue[]): void {
  // The outbound fetch keeps these across a redirect to another origin: a sealed value in one could leave its origin.
  for (const name of names.filter((header) => CROSS_ORIGIN_SAFE_HEADERS.has(header.toLowerCase()))) {
    issues.push({
      path: `${path}/headers/${pointerSegment(name)}`,
      code: 'INVALID_CONFIG',
      message: `"${name}" follows redirects to other origins: a secret value may not go in it`,
    });
  }
  const reported = typeof url !== 'string' || (!url.includes('{{') && !URL.canParse(url));
  if (names.length > 0 && !reported && !fixedOriginUrl(url)) {
    issues.push({
      path: `${path}/url`,
      code: 'INVALID_CONFIG',
      message: `header ${names.map((name) => `"${name}"`).join(', ')} holds a secret: the url's scheme, host and port must be fixed (no template before the path)`,
    });
  }
}

function checkHeaders(
  headers: Record<string, HeaderValue>,
  url: unknown,
  path: string,
  workflow: WorkflowDefinition | undefined,
  issues: ValidationIssue[],
): void {
  const secrets = new Set(secretInputKeys(workflow?.inputSchema));
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      issues.push({ path: `${path}/headers/${pointerSegment(name)}`, code: 'INVALID_CONFIG', message: `"${name}" is not a header name` });
    if (isSealedHeader(value)) continue;
    for (const match of value.matchAll(SECRET_PLACEHOLDER)) {
      if (workflow && !secrets.has(match[1])) {
        issues.push({
          path: `${path}/headers/${pointerSegment(name)}`,
          code: 'INVALID_CONFIG',
          message: `run input "${match[1]}" must be secret (writeOnly: true or format: "password" in inputSchema)`,
        });
      }
    }
    if (CREDENTIAL_HEADER.test(name) && !SCHEME_WORD.test(value.replace(/\{\{[^{}]*\}\}/g, ''))) {
      issues.push({
        path: `${path}/headers/${pointerSegment(name)}`,
        code: 'INVALID_CONFIG',
        message: `header "${name}" carries a credential: write it as {"secret": "<value>"} (sealed) or read a secret run input with "{{inputs.<name>}}"`,
      });
    }
  }
  const sealed = Object.keys(headers).filter((name) => isSealedHeader(headers[name]));
  checkSealedHeaders(sealed, url, path, issues);
}

export function readHttpConfig(
  node: NodeDefinition,
  nodePath: string,
  workflow?: WorkflowDefinition,
): { config: HttpConfig; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const raw = node.config ?? {};
  const path = `${nodePath}/config`;
  for (const key of Object.keys(raw).filter((name) => !KNOWN_KEYS.includes(name))) {
    issues.push({ path: `${path}/${key}`, code: 'INVALID_CONFIG', message: `unknown config field "${key}"` });
  }
  const method = raw.method ?? 'GET';
  if (!HTTP_METHODS.includes(method as HttpConfig['method']))
    issues.push({ path: `${path}/method`, code: 'INVALID_CONFIG', message: `method must be one of ${HTTP_METHODS.join(', ')}` });
  if (typeof raw.url !== 'string' || raw.url.trim() === '')
    issues.push({ path: `${path}/url`, code: 'INVALID_CONFIG', message: 'url must be a non-empty template' });
  else if (!/\{\{/.test(raw.url) && !URL.canParse(raw.url))
    issues.push({ path: `${path}/url`, code: 'INVALID_CONFIG', message: 'url is not a URL' });
  const headers = readHeaders(raw.headers, `${path}/headers`, issues);
  checkHeaders(headers, raw.url, path, workflow, issues);
  let body: HttpConfig['body'];
  if (raw.body !== undefined) {
    const type = isRecord(raw.body) ? raw.body.type : undefined;
    if (!BODY_TYPES.includes(type as never))
      issues.push({ path: `${path}/body/type`, code: 'INVALID_CONFIG', message: `body type must be one of ${BODY_TYPES.join(', ')}` });
    else if (!isRecord(raw.body) || !isValueSource(raw.body.value))
      issues.push({ path: `${path}/body/value`, code: 'INVALID_CONFIG', message: 'body value must be a value source' });
    else body = { type: type as (typeof BODY_TYPES)[number], value: raw.body.value };
    if (body && (method === 'GET' || method === 'HEAD'))
      issues.push({ path: `${path}/body`, code: 'INVALID_CONFIG', message: `a ${String(method)} request has no body` });
  }
  if (raw.failOnStatus !== undefined && typeof raw.failOnStatus !== 'boolean')
    issues.push({ path: `${path}/failOnStatus`, code: 'INVALID_CONFIG', message: 'must be a boolean' });
  const config: HttpConfig = {
    method: method as HttpConfig['method'],
    url: typeof raw.url === 'string' ? raw.url : '',
    query: readStrings(raw.query, `${path}/query`, issues),
    headers,
    body,
    timeoutMs: readInteger(raw.timeoutMs, `${path}/timeoutMs`, HTTP_LIMITS.timeoutMs, 1, issues),
    failOnStatus: raw.failOnStatus !== false,
    retries: readInteger(raw.retries, `${path}/retries`, HTTP_LIMITS.retries, 0, issues),
    backoffMs: readInteger(raw.backoffMs, `${path}/backoffMs`, HTTP_LIMITS.backoffMs, 0, issues),
    maxResponseBytes: readInteger(raw.maxResponseBytes, `${path}/maxResponseBytes`, HTTP_LIMITS.maxResponseBytes, 1, issues),
  };
  return { config, issues };
}

/** The pointer (inside the node) of a sealed header's value. */
export function sealedHeaderPath(name: string): string {
  return `/config/headers/${pointerSegment(name)}/secret`;
}

/** The sealed headers as the node declares them to the workflow store: each bound to the url's fixed origin. */
export function httpSecretConfig(config: HttpConfig): SecretConfigValue[] {
  // No fixed origin: bound to nothing the store accepts (validation refuses such a url first).
  const boundTo = fixedOriginUrl(config.url) ?? '';
  return Object.entries(config.headers).flatMap(([name, value]) =>
    isSealedHeader(value) ? [{ path: sealedHeaderPath(name), value: value.secret, boundTo }] : [],
  );
}

/** The templates and value sources of the config, for the engine's reference checks (secret placeholders left out). */
export function httpConfigValueSources(config: HttpConfig): ConfigValueSource[] {
  const sources: ConfigValueSource[] = [{ path: '/config/url', source: { template: config.url } }];
  for (const [name, value] of Object.entries(config.query)) sources.push({ path: `/config/query/${name}`, source: { template: value } });
  for (const [name, value] of Object.entries(config.headers)) {
    if (isSealedHeader(value)) continue;
    sources.push({ path: `/config/headers/${name}`, source: { template: value.replace(SECRET_PLACEHOLDER, '') } });
  }
  if (config.body) sources.push({ path: '/config/body/value', source: config.body.value });
  return sources;
}

const TEMPLATES: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

export const HTTP_CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['url'],
  additionalProperties: false,
  properties: {
    method: { enum: [...HTTP_METHODS], default: 'GET' },
    url: { type: 'string', description: 'Template: `https://api.example.com/items/{{start.id}}`.' },
    query: { ...(TEMPLATES as object), description: 'Query parameters, each a template.' },
    headers: {
      type: 'object',
      additionalProperties: {
        anyOf: [
          { type: 'string' },
          { type: 'object', required: ['secret'], additionalProperties: false, properties: { secret: { type: 'string', minLength: 1 } } },
        ],
      },
      description:
        'Each a template (`{{inputs.<name>}}` reads a secret run input), or {"secret": "<value>"}: sealed at save, shown as "***" ' +
        '(send "***" back to keep it), sent only to the url\'s origin, which must then be fixed.',
    },
    body: {
      type: 'object',
      required: ['type', 'value'],
      additionalProperties: false,
      properties: {
        type: { enum: [...BODY_TYPES] },
        value: { type: 'object', description: 'A value source ({value}, {ref}, {template}).' },
      },
    },
    timeoutMs: { type: 'integer', minimum: 1, maximum: HTTP_LIMITS.timeoutMs.max, default: HTTP_LIMITS.timeoutMs.default },
    failOnStatus: {
      type: 'boolean',
      default: true,
      description: 'A non-2xx answer fails the node (its error handle with catchError); false: it is an output like any other.',
    },
    retries: { type: 'integer', minimum: 0, maximum: HTTP_LIMITS.retries.max, default: HTTP_LIMITS.retries.default },
    backoffMs: { type: 'integer', minimum: 0, maximum: HTTP_LIMITS.backoffMs.max, default: HTTP_LIMITS.backoffMs.default },
    maxResponseBytes: {
      type: 'integer',
      minimum: 1,
      maximum: HTTP_LIMITS.maxResponseBytes.max,
      default: HTTP_LIMITS.maxResponseBytes.default,
    },
  },
};
