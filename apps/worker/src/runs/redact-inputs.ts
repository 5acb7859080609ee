import {
  redactArguments,
  type JsonSchema,
  type NodeDefinition,
  type RedactInputs,
  type ToolCatalog,
  type WorkflowDefinition,
} from '#workflow';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const toolKey = (toolsetId: string, tool: string): string => JSON.stringify([toolsetId, tool]);

/** The toolset/tool pairs named anywhere in the nodes' configs, sub-graphs held in a config (a map's body) included. */
function namedTools(value: unknown, found: Map<string, [string, string]>, depth = 0): Map<string, [string, string]> {
  if (depth > 64) return found;
  if (Array.isArray(value)) for (const item of value) namedTools(item, found, depth + 1);
  if (!isRecord(value)) return found;
  const { config } = value;
  if (isRecord(config) && typeof config.toolsetId === 'string' && typeof config.tool === 'string') {
    found.set(toolKey(config.toolsetId, config.tool), [config.toolsetId, config.tool]);
  }
  for (const item of Object.values(value)) namedTools(item, found, depth + 1);
  return found;
}

/**
 * The engine's redact hook for one run: the shared log redaction (`redactArguments`: credential
 * names at any depth, and inputs the tool's schema marks `writeOnly` / `format: "password"`),
 * with the input schema of every tool the workflow names read up front because the hook is
 * synchronous. The schema is found by the logged node's own `{toolsetId, tool}`, so a node inside
 * a sub-graph (a map's body, logged as `<mapId>[<index>]/<nodeId>`) is redacted like a top-level
 * one. Only the logged copy is scrubbed; the tool still gets the value.
 */
export async function createRedactor(workflow: WorkflowDefinition, catalog: ToolCatalog): Promise<RedactInputs> {
  const schemaByTool = new Map<string, JsonSchema>();
  await Promise.all(
    [...namedTools(workflow.nodes, new Map())].map(async ([key, [toolsetId, tool]]) => {
      const descriptor = await catalog.getTool(toolsetId, tool).catch(() => undefined);
      if (descriptor) schemaByTool.set(key, descriptor.inputSchema);
    }),
  );
  return (inputs: Record<string, unknown>, node: NodeDefinition) => {
    const { toolsetId, tool } = node.config ?? {};
    const schema = typeof toolsetId === 'string' && typeof tool === 'string' ? schemaByTool.get(toolKey(toolsetId, tool)) : undefined;
    return redactArguments(inputs, schema);
  };
}
