import { validateArguments } from '#mcp';
import type { JsonSchema } from '../engine/types.js';
import type { SecretBox } from '../secrets/secret-box.js';

/** Top-level defaults of the input schema, filled in where the caller left a key out. */
export function withInputDefaults(schema: JsonSchema | undefined, inputs: Record<string, unknown>): Record<string, unknown> {
  const properties = typeof schema === 'object' ? schema.properties : undefined;
  if (typeof properties !== 'object' || properties === null) return inputs;
  const filled = { ...inputs };
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    const fallback = (property as { default?: unknown } | null)?.default;
    if (!Object.hasOwn(filled, key) && fallback !== undefined) filled[key] = structuredClone(fallback);
  }
  return filled;
}

/** Whether run inputs fit the workflow's `inputSchema` (the worker's check at a firing; the API reports every path). */
export function inputsFit(schema: JsonSchema | undefined, inputs: Record<string, unknown>): boolean {
  return schema === undefined || validateArguments(schema, inputs).ok;
}

/** Stored inputs with their sealed secret ones opened again (a schedule's, at a firing or a PATCH). */
export function openedInputs(stored: { inputs: Record<string, unknown>; secretInputs?: string }, box: SecretBox): Record<string, unknown> {
  if (!stored.secretInputs) return stored.inputs;
  return { ...stored.inputs, ...(JSON.parse(box.open(stored.secretInputs)) as Record<string, unknown>) };
}
