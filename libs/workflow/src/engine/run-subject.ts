/**
 * Whose OAuth grant a run uses with per-user toolsets (`auth.perUser`): its end-user subject. A
 * workflow names one top-level input of its `inputSchema` as the subject with
 * `"x-mcpflow-subject": true` (a string; not secret, since the subject is shown where the run
 * waits for its authorization); without one, the subject is the API key that started the run.
 * The two kinds are spelled apart (`input:…`, `key:…`) so that an input never names a key's grant.
 */
import type { JsonSchema } from './types.js';
import { SECRET_MASK } from './scrub-secrets.js';

export const SUBJECT_KEYWORD = 'x-mcpflow-subject';
/** The longest subject input value taken. */
export const MAX_SUBJECT_LENGTH = 256;

export type RunSubject = { subject: string } | { problem: string };

/** The top-level input the workflow names as its subject, if any. */
export function subjectInputKey(inputSchema: JsonSchema | undefined): string | undefined {
  const properties = typeof inputSchema === 'object' && inputSchema !== null ? inputSchema.properties : undefined;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const named = Object.entries(properties as Record<string, unknown>).find(
    ([, property]) => typeof property === 'object' && property !== null && (property as Record<string, unknown>)[SUBJECT_KEYWORD] === true,
  );
  return named?.[0];
}

/** The run's subject: the named input's value, else the key that started it (`keyId`); a problem when neither can be. */
export function runSubject(inputSchema: JsonSchema | undefined, inputs: Record<string, unknown>, keyId: string | undefined): RunSubject {
  const key = subjectInputKey(inputSchema);
  if (key === undefined) {
    return keyId
      ? { subject: `key:${keyId}` }
      : { problem: 'the run has no subject: no API key started it and its workflow names no subject input' };
  }
  const value = inputs[key];
  if (value === SECRET_MASK) return { problem: `the subject input "${key}" is secret (writeOnly or password): a subject must not be` };
  if (typeof value !== 'string' || value === '' || value.length > MAX_SUBJECT_LENGTH)
    return {
      problem: `the run has no subject: its input "${key}" (named by ${SUBJECT_KEYWORD}) must be a string of 1 to ${MAX_SUBJECT_LENGTH} characters`,
    };
  return { subject: `input:${value}` };
}
