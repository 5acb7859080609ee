/**
 * Per-run header values: a toolset header may be a template over run inputs
 * (`"Authorization": "Bearer {{inputs.userToken}}"`), and every input it names must be secret in
 * the workflow's `inputSchema` (`writeOnly: true` or `format: "password"`). Secret inputs are kept
 * apart from the run's other inputs: sealed in the store, `***` wherever a run is shown, and only
 * ever rendered into the headers of the run's own MCP connections.
 */
import type { JsonSchema } from './types.js';
import { SECRET_MASK } from './scrub-secrets.js';

const TEMPLATE = /\{\{\s*inputs\.([A-Za-z_$][\w$-]*)\s*\}\}/g;

/** The run inputs the header values refer to, in order of first use. */
export function headerTemplateInputs(headers: Record<string, string>): string[] {
  const names = new Set<string>();
  for (const value of Object.values(headers)) for (const match of value.matchAll(TEMPLATE)) names.add(match[1]);
  return [...names];
}

export function hasHeaderTemplates(headers: Record<string, string>): boolean {
  return headerTemplateInputs(headers).length > 0;
}

/** Headers without the templated ones: what listings and ad-hoc calls send (they have no run). */
export function staticHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, value]) => headerTemplateInputs({ value }).length === 0));
}

/** Headers with every template filled from the run's secret inputs; a missing one is an error naming it. */
export function renderHeaders(headers: Record<string, string>, secrets: Record<string, unknown>): Record<string, string> {
  const missing = headerTemplateInputs(headers).filter((name) => typeof secrets[name] !== 'string' && typeof secrets[name] !== 'number');
  if (missing.length > 0) throw new SecretInputMissingError(missing);
  const render = (value: string) => value.replace(TEMPLATE, (_whole, name: string) => String(secrets[name]));
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, render(value)]));
}

export class SecretInputMissingError extends Error {
  readonly code = 'SECRET_INPUT_MISSING';
  constructor(readonly inputs: string[]) {
    super(
      `a header template needs the secret run input(s) ${inputs.map((name) => `"${name}"`).join(', ')}, which this run does not have (mark them writeOnly in the workflow's inputSchema)`,
    );
  }
}

/** Top-level input properties marked secret: `writeOnly: true` or `format: "password"`. */
export function secretInputKeys(inputSchema: JsonSchema | undefined): string[] {
  const properties = typeof inputSchema === 'object' && inputSchema !== null ? inputSchema.properties : undefined;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>)
    .filter(([, property]) => {
      const schema = property as { writeOnly?: unknown; format?: unknown } | null;
      return schema?.writeOnly === true || schema?.format === 'password';
    })
    .map(([key]) => key);
}

/** Run inputs split in two: what may be stored and shown (secrets masked), and the secrets alone. */
export function splitSecretInputs(
  inputSchema: JsonSchema | undefined,
  inputs: Record<string, unknown>,
): { shown: Record<string, unknown>; secrets: Record<string, unknown> } {
  const keys = new Set(secretInputKeys(inputSchema).filter((key) => Object.hasOwn(inputs, key)));
  const shown = Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key, keys.has(key) ? SECRET_MASK : value]));
  const secrets = Object.fromEntries([...keys].map((key) => [key, inputs[key]]));
  return { shown, secrets };
}
