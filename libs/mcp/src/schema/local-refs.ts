/**
 * Local `$ref` resolution for reading schemas (not for validating them — Ajv does that).
 * Only JSON pointers into the same document (`#`, `#/$defs/X`, `#/definitions/X`, …) resolve;
 * anything else is left unresolved, never fetched.
 */
export type SchemaObject = Record<string, unknown>;

export function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `$ref` chains from `schema`; returns undefined for a ref that is remote, dangling or cyclic. */
export function deref(schema: unknown, root: SchemaObject): SchemaObject | undefined {
  const seen = new Set<string>();
  let current = schema;
  while (isSchemaObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (seen.has(ref)) return undefined;
    seen.add(ref);
    const target = resolvePointer(ref, root);
    if (target === undefined) return undefined;
    // Sibling keywords next to `$ref` (2020-12 allows them: title, description, default) win.
    const { $ref: _ref, ...siblings } = current;
    current = isSchemaObject(target) ? { ...target, ...siblings } : target;
  }
  return isSchemaObject(current) ? current : undefined;
}

function resolvePointer(ref: string, root: SchemaObject): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isSchemaObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
    if (node === undefined) return undefined;
  }
  return node;
}

/** True when `$ref` occurs anywhere inside `value`. */
export function usesRefs(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(usesRefs);
  if (!isSchemaObject(value)) return false;
  return Object.entries(value).some(([key, child]) => (key === '$ref' && typeof child === 'string') || usesRefs(child));
}
