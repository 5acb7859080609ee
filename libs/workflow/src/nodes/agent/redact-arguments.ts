/**
 * Tool arguments as they may be logged: values under keys that name a credential are replaced.
 * The model writes the arguments, so a secret there came from the prompt or a tool result;
 * either way it has no business in run logs.
 */
const SECRET_KEY = /pass(word|phrase)?$|secret|token|api[-_]?key|authorization|credential|private[-_]?key|cookie|session[-_]?id/i;

export const REDACTED = '***';

export function redactArguments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactArguments);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_KEY.test(key) ? REDACTED : redactArguments(item)]));
}
