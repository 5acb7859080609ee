import { ENGINE_ERROR_CODES, EngineError, toEngineError } from '../engine/errors.js';
import type { NodeExecutionContext, NodeExecutor, TypedField } from '../engine/types.js';
import { nodeSecretsFor, SECRET_CONFIG_MISSING } from '../engine/node-secrets.js';
import { scrubSecrets } from '../engine/scrub-secrets.js';
import {
  HTTP_CONFIG_SCHEMA,
  httpConfigValueSources,
  httpSecretConfig,
  isSealedHeader,
  readHttpConfig,
  SECRET_PLACEHOLDER,
  sealedHeaderPath,
  type HeaderValue,
  type HttpConfig,
} from './http/http-config.js';
import { HTTP_ERROR_CODES, HTTP_FETCH_EXTRA, RUN_SECRETS_EXTRA, type HttpFetch, type RunSecrets } from './http/http-port.js';
import { sendRequest } from './http/send-request.js';

const OUTPUTS: TypedField[] = [
  { key: 'status', label: 'Status', valueType: 'integer', required: false, schema: { type: 'integer' } },
  {
    key: 'headers',
    label: 'Headers',
    description: 'response headers, lower-case names',
    valueType: 'object',
    required: false,
    schema: { type: 'object' },
  },
  { key: 'body', label: 'Body', description: 'parsed when JSON, else text', valueType: 'any', required: false, schema: true },
];

function render(context: NodeExecutionContext, template: string): string {
  const value = context.resolveValue?.({ template });
  return typeof value === 'string' ? value : '';
}

/** Sealed header values in clear, from the host, for a request to `url` (the host gives none bound to another origin). */
async function openSealedHeaders(context: NodeExecutionContext, headers: Record<string, HeaderValue>, url: string, used: string[]) {
  const sealed = Object.keys(headers).filter((name) => isSealedHeader(headers[name]));
  const clear: Readonly<Record<string, string>> = sealed.length > 0 ? await nodeSecretsFor(context, url) : {};
  const opened: Record<string, string> = {};
  for (const name of sealed) {
    const value = clear[sealedHeaderPath(name)];
    if (value === undefined) {
      throw new EngineError(
        SECRET_CONFIG_MISSING,
        `the sealed value of header "${name}" is not available for a request to ${new URL(url).origin}`,
      );
    }
    opened[name] = value;
    used.push(value);
  }
  return opened;
}

/** Header values: sealed ones opened, `{{inputs.x}}` from the run's secret inputs, every other placeholder by the engine. */
async function renderHeaders(
  context: NodeExecutionContext,
  headers: Record<string, HeaderValue>,
  url: string,
  used: string[],
): Promise<Record<string, string>> {
  const rendered: Record<string, string> = await openSealedHeaders(context, headers, url, used);
  const templates = Object.entries(headers).filter((entry): entry is [string, string] => !isSealedHeader(entry[1]));
  const needsSecrets = templates.some(([, value]) => new RegExp(SECRET_PLACEHOLDER.source).test(value));
  const source = context.services.extras?.[RUN_SECRETS_EXTRA] as RunSecrets | undefined;
  const secrets = needsSecrets && source ? await source() : {};
  for (const [name, value] of templates) {
    const parts: string[] = [];
    const marked = value.replace(SECRET_PLACEHOLDER, (_whole, key: string) => {
      const secret = secrets[key];
      if (typeof secret !== 'string' && typeof secret !== 'number') {
        throw new EngineError('SECRET_INPUT_MISSING', `header "${name}" needs the secret run input "${key}", which this run does not have`);
      }
      parts.push(String(secret));
      used.push(String(secret));
      return `\uE000${parts.length - 1}\uE000`;
    });
    rendered[name] = render(context, marked).replace(/\uE000(\d+)\uE000/g, (_whole, index: string) => parts[Number(index)]);
  }
  return rendered;
}

function encodeBody(context: NodeExecutionContext, config: HttpConfig, headers: Record<string, string>): string | undefined {
  if (!config.body) return undefined;
  const value = context.resolveValue?.(config.body.value);
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  const contentType = { json: 'application/json', text: 'text/plain; charset=utf-8', form: 'application/x-www-form-urlencoded' }[
    config.body.type
  ];
  if (!hasType) headers['content-type'] = contentType;
  if (config.body.type === 'json') return JSON.stringify(value ?? null);
  if (config.body.type === 'text') return typeof value === 'string' ? value : JSON.stringify(value ?? '');
  const entries = typeof value === 'object' && value !== null ? Object.entries(value) : [];
  return new URLSearchParams(
    entries.map(([key, item]): [string, string] => [key, typeof item === 'string' ? item : JSON.stringify(item)]),
  ).toString();
}

function buildUrl(context: NodeExecutionContext, config: HttpConfig): string {
  const text = render(context, config.url);
  if (!URL.canParse(text))
    throw new EngineError(ENGINE_ERROR_CODES.nodeInputInvalid, `url "${text}" is not a URL`, { path: '/config/url' });
  const url = new URL(text);
  for (const [name, template] of Object.entries(config.query)) url.searchParams.set(name, render(context, template));
  return url.toString();
}

/**
 * A plain HTTP request through the host's SSRF-safe fetch: method, URL and query from templates,
 * headers sealed in the workflow or read from secret run inputs, JSON/text/form bodies; `{status, headers, body}` out.
 */
export const httpNode: NodeExecutor = {
  type: 'http',
  describeType: () => ({
    title: 'HTTP request',
    description: 'Calls an HTTP API (no MCP server needed): templates for URL, query and headers; JSON parsed.',
    configSchema: HTTP_CONFIG_SCHEMA,
    handles: ['out'],
    inputs: [],
    outputs: OUTPUTS,
  }),
  validate: async ({ node, nodePath, workflow }) => readHttpConfig(node, nodePath, workflow).issues,
  describeInputs: async () => [],
  describeOutputs: async () => OUTPUTS,
  configValueSources: (node) => httpConfigValueSources(readHttpConfig(node, '').config),
  secretConfig: (node) => httpSecretConfig(readHttpConfig(node, '').config),
  execute: async (context) => {
    const { config } = readHttpConfig(context.node, '');
    const fetch = context.services.extras?.[HTTP_FETCH_EXTRA] as HttpFetch | undefined;
    if (!fetch) throw new EngineError(HTTP_ERROR_CODES.notConfigured, `this host has no HTTP fetch (services.extras.${HTTP_FETCH_EXTRA})`);
    const secrets: string[] = [];
    const scrub = (text: string) => (secrets.length === 0 ? text : scrubSecrets(text, secrets));
    const url = buildUrl(context, config);
    const details: Record<string, unknown> = { method: config.method, url };
    try {
      const headers = await renderHeaders(context, config.headers, url, secrets);
      const body = encodeBody(context, config, headers);
      const request = { ...config, url, headers, body, scrub };
      const answer = await sendRequest(fetch, request, context.services.clock, context.signal);
      Object.assign(details, { status: answer.status, attempts: answer.attempts });
      const outputs = { status: answer.status, headers: answer.headers, body: answer.body };
      if (config.failOnStatus && (answer.status < 200 || answer.status > 299)) {
        throw new EngineError(HTTP_ERROR_CODES.status, `${config.method} ${url} answered ${answer.status}`, {
          details: { ...details, response: outputs },
        });
      }
      return { outputs, details };
    } catch (thrown) {
      context.signal.throwIfAborted();
      const error = toEngineError(thrown);
      throw new EngineError(error.code, scrub(error.message), { details: error.details ?? details });
    }
  },
};
