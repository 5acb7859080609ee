import type { Tool } from '@modelcontextprotocol/server';
import { END_NODE_TYPE, type NodeRegistry, type ToolCatalog, type TypedField, type WorkflowDefinition } from '#workflow';

function literalSchema(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array' };
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'object' ? { type } : {};
}

/**
 * A published workflow's `outputSchema`: the run's outputs are the `end` node's inputs, each typed
 * as far as it is known without running — a template renders a string, a literal has its JSON
 * type, a reference takes the schema its node type declares for that output (the same description
 * the workflow checker uses: `start` from `inputSchema`, `mcpTool` from the tool's `outputSchema`,
 * …); a path into an output, or an output no type declares, stays open (`{}`). No key is
 * `required`: an output whose value is undefined is absent from the JSON. None without one `end`.
 */
export async function outputSchemaOf(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  catalog: ToolCatalog,
): Promise<Tool['outputSchema']> {
  const ends = definition.nodes.filter((node) => node.type === END_NODE_TYPE);
  if (ends.length !== 1) return undefined;
  const properties: Record<string, unknown> = {};
  for (const [key, source] of Object.entries(ends[0].inputs ?? {})) {
    if ('template' in source) properties[key] = { type: 'string' };
    else if ('value' in source) properties[key] = literalSchema(source.value);
    else properties[key] = await referencedSchema(source.ref, definition, registry, catalog);
  }
  return { type: 'object', properties } as Tool['outputSchema'];
}

/** The field's own schema when it has one, else what its value type says. */
function fieldSchema(field: TypedField): unknown {
  if (typeof field.schema === 'object' && Object.keys(field.schema).length > 0) return field.schema;
  if (field.valueType.startsWith('array<')) return { type: 'array' };
  return field.valueType === 'any' ? {} : { type: field.valueType };
}

async function referencedSchema(
  ref: string,
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  catalog: ToolCatalog,
): Promise<unknown> {
  const [nodeId, outputKey, ...path] = ref.split('.');
  const index = definition.nodes.findIndex((node) => node.id === nodeId);
  const node = definition.nodes[index];
  const describe = node && path.length === 0 ? registry.get(node.type)?.describeOutputs : undefined;
  if (!describe) return {};
  const outputs = await describe({ node, nodePath: `/nodes/${index}`, catalog, workflow: definition }).catch(() => undefined);
  const field = outputs?.find((output) => output.key === outputKey);
  return field ? fieldSchema(field) : {};
}
