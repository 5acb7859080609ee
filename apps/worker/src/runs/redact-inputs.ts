import type { NodeDefinition, RedactInputs, ToolCatalog, WorkflowDefinition } from '#workflow';

export const REDACTED = '***';

/** Names that carry credentials (`apiKey`, `github_token`, `password`…); `maxTokens` is not one. */
const SECRET_NAME = /(password|passphrase|passwd|secret|token|api[-_]?key|apikey|authorization|credentials?|cookie|private[-_]?key|access[-_]?key)$/i;

const MAX_DEPTH = 20;

function scrub(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_NAME.test(key) ? REDACTED : scrub(item, depth + 1)]));
}

/** Tool inputs the tool's schema marks as secret (`writeOnly`, `format: password`). */
function secretInputsOf(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { writeOnly?: unknown; format?: unknown }> } | null)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties)
    .filter(([, property]) => property?.writeOnly === true || property?.format === 'password')
    .map(([key]) => key);
}

/**
 * The engine's redact hook for one run: inputs whose name says credential, and tool inputs
 * whose schema says so, are logged as `***`. The full value still reaches the tool; only the
 * log copy is scrubbed. Tool schemas are read up front because the hook is synchronous.
 */
export async function createRedactor(workflow: WorkflowDefinition, catalog: ToolCatalog): Promise<RedactInputs> {
  const secretsByNode = new Map<string, Set<string>>();
  for (const node of workflow.nodes) {
    const { toolsetId, tool } = node.config ?? {};
    if (typeof toolsetId !== 'string' || typeof tool !== 'string') continue;
    const descriptor = await catalog.getTool(toolsetId, tool).catch(() => undefined);
    const keys = secretInputsOf(descriptor?.inputSchema);
    if (keys.length > 0) secretsByNode.set(node.id, new Set(keys));
  }
  return (inputs: Record<string, unknown>, node: NodeDefinition) => {
    const marked = secretsByNode.get(node.id);
    const scrubbed = scrub(inputs, 0) as Record<string, unknown>;
    if (marked) for (const key of marked) if (Object.hasOwn(scrubbed, key)) scrubbed[key] = REDACTED;
    return scrubbed;
  };
}
