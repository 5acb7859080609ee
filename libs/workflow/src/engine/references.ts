/** `<nodeId>.<outputKey>[.path…]`; `items[0]` is read as `items.0`. */
export interface Reference {
  nodeId: string;
  key: string;
  path: string[];
}

const TEMPLATE_PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Parsed references by text: a workflow's references are few and read on every run of every node. */
const parsedReferences = new Map<string, Reference | undefined>();
const MAX_PARSED_REFERENCES = 10_000;

export function parseReference(text: string): Reference | undefined {
  if (parsedReferences.has(text)) return parsedReferences.get(text);
  if (parsedReferences.size >= MAX_PARSED_REFERENCES) parsedReferences.clear();
  const reference = parseReferenceText(text);
  parsedReferences.set(text, reference);
  return reference;
}

function parseReferenceText(text: string): Reference | undefined {
  const segments = text
    .trim()
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.');
  if (segments.length < 2 || segments.some((segment) => segment.trim() === '')) return undefined;
  const [nodeId, key, ...path] = segments.map((segment) => segment.trim());
  return { nodeId, key, path };
}

/** Walks into objects and arrays; anything missing on the way reads as `undefined`. */
export function readPath(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const segment of path) {
    if (Array.isArray(current)) {
      current = /^\d+$/.test(segment) ? current[Number(segment)] : undefined;
    } else if (typeof current === 'object' && current !== null && Object.hasOwn(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** The raw reference texts of a template's `{{…}}` placeholders, in order. */
export function templatePlaceholders(template: string): string[] {
  return [...template.matchAll(TEMPLATE_PLACEHOLDER)].map((match) => match[1]);
}

/** Strings are inserted as they are, objects and arrays as JSON, nothing (undefined/null) as ''. */
export function stringifyForTemplate(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function renderTemplate(template: string, lookup: (reference: Reference) => unknown): string {
  return template.replace(TEMPLATE_PLACEHOLDER, (_placeholder, text: string) => {
    const reference = parseReference(text);
    return reference ? stringifyForTemplate(lookup(reference)) : '';
  });
}
