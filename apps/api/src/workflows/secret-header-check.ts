import { nodeReferencesOf, type NodeRegistry, type WorkflowDefinition } from '#workflow';
import { headerTemplateInputs, secretInputKeys, type ToolsetRepository } from '#workflow/nest';
import type { ProblemDetail } from '../common/api-errors.js';

/**
 * A toolset whose headers are templates over run inputs (`Bearer {{inputs.userToken}}`) may only
 * be used by a workflow that declares each such input secret (`writeOnly: true` or
 * `format: "password"`): otherwise the token would be stored and shown like any other input.
 */
export async function secretHeaderProblems(
  definition: WorkflowDefinition,
  registry: NodeRegistry,
  toolsets: ToolsetRepository,
  /** Toolsets the caller may see (a workflow-limited key's grant); undefined = all. */
  visible?: ReadonlySet<string>,
): Promise<ProblemDetail[]> {
  const secret = new Set(secretInputKeys(definition.inputSchema));
  const named = nodeReferencesOf(registry, definition.nodes).filter((reference) => reference.kind === 'toolset');
  const checks = named.map(async ({ id, path }): Promise<ProblemDetail[]> => {
    if (visible && !visible.has(id)) return [];
    const connection = await toolsets.connectionOf(id).catch(() => undefined);
    if (!connection || connection.kind === 'stdio') return [];
    return headerTemplateInputs(connection.headers)
      .filter((input) => !secret.has(input))
      .map((input) => ({
        path,
        code: 'SECRET_INPUT_REQUIRED',
        message: `toolset "${id}" builds a header from inputs.${input}: declare "${input}" in inputSchema.properties with writeOnly: true or format: "password"`,
      }));
  });
  return (await Promise.all(checks)).flat();
}
