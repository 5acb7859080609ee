import { headerTemplateInputs, secretInputKeys, type ToolsetRepository, type WorkflowDefinition } from '#workflow';
import type { ProblemDetail } from '../common/api-errors.js';

/**
 * A toolset whose headers are templates over run inputs (`Bearer {{inputs.userToken}}`) may only
 * be used by a workflow that declares each such input secret (`writeOnly: true` or
 * `format: "password"`): otherwise the token would be stored and shown like any other input.
 */
export async function secretHeaderProblems(definition: WorkflowDefinition, toolsets: ToolsetRepository): Promise<ProblemDetail[]> {
  const secret = new Set(secretInputKeys(definition.inputSchema));
  const checks = definition.nodes.map(async (node, index): Promise<ProblemDetail[]> => {
    const toolsetId = node.config?.toolsetId;
    if (node.type !== 'mcpTool' || typeof toolsetId !== 'string') return [];
    const connection = await toolsets.connectionOf(toolsetId).catch(() => undefined);
    if (!connection || connection.kind === 'stdio') return [];
    return headerTemplateInputs(connection.headers)
      .filter((input) => !secret.has(input))
      .map((input) => ({
        path: `/nodes/${index}/config/toolsetId`,
        code: 'SECRET_INPUT_REQUIRED',
        message: `toolset "${toolsetId}" builds a header from inputs.${input}: declare "${input}" in inputSchema.properties with writeOnly: true or format: "password"`,
      }));
  });
  return (await Promise.all(checks)).flat();
}
