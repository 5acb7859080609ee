import type { HookInputMapping } from '#workflow/nest';

/** Where a mapped input may come from: `body`, `body.<path>` (dots; array items by number), `headers.<name>`. */
export const INPUT_PATH = /^(body(\.[^.]+)*|headers\.[a-z0-9-]+)$/;

/** A delivery body as its content type says: JSON, a form (Slack's slash commands), else the text. Undefined: not valid JSON. */
export function parseBody(raw: Buffer, contentType: string | undefined): { value: unknown } | undefined {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const text = raw.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') return { value: Object.fromEntries(new URLSearchParams(text)) };
  if (type === 'application/json' || type.endsWith('+json') || (type === '' && text.trim().startsWith('{'))) {
    if (text.trim() === '') return { value: {} };
    try {
      return { value: JSON.parse(text) as unknown };
    } catch {
      return undefined;
    }
  }
  return { value: text };
}

function at(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/**
 * The run inputs of a delivery: each mapped input read at its path (a path that finds nothing
 * leaves the input out, so `inputSchema` says whether it was required). Without a mapping, the
 * body is the inputs when it is a JSON object.
 */
export function inputsOf(
  mapping: HookInputMapping | undefined,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
): Record<string, unknown> {
  if (!mapping) return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const inputs: Record<string, unknown> = {};
  for (const [name, path] of Object.entries(mapping)) {
    const [root, ...rest] = path.split('.');
    const value = root === 'headers' ? headers[rest.join('.')] : at(body, rest);
    if (value !== undefined) inputs[name] = value;
  }
  return inputs;
}
