import {
  redactArguments,
  type JsonSchema,
  type NodeDefinition,
  type RedactInputs,
  type ToolCatalog,
  type WorkflowDefinition,
} from '#workflow';

/**
 * The engine's redact hook for one run: the shared log redaction (`redactArguments`: credential
 * names at any depth, and inputs the tool's schema marks `writeOnly` / `format: "password"`),
 * with each mcpTool node's input schema read up front because the hook is synchronous. Only the
 * logged copy is scrubbed; the tool still gets the value.
 */
export async function createRedactor(workflow: WorkflowDefinition, catalog: ToolCatalog): Promise<RedactInputs> {
  const schemaByNode = new Map<string, JsonSchema>();
  for (const node of workflow.nodes) {
    const { toolsetId, tool } = node.config ?? {};
    if (typeof toolsetId !== 'string' || typeof tool !== 'string') continue;
    const descriptor = await catalog.getTool(toolsetId, tool).catch(() => undefined);
    if (descriptor) schemaByNode.set(node.id, descriptor.inputSchema);
  }
  return (inputs: Record<string, unknown>, node: NodeDefinition) => redactArguments(inputs, schemaByNode.get(node.id));
}
