import { Injectable } from '@nestjs/common';
import { connectMcp, validateArguments } from '#mcp';
import { ToolsetRepository, ToolsetTargets, connectionSecrets, connectionSpecOf } from '#workflow/nest';
import { ApiError, NotFoundError } from '../common/api-errors.js';
import type { ToolCallView } from './dto/toolset-views.js';
import { connectionFailure, invalidArguments } from './toolset-errors.js';
import { targetOrRefusal } from './toolset-listing.js';

/**
 * POST /toolsets/:id/tools/:tool/call: one ad-hoc call, for trying a tool. Arguments are checked
 * against the stored inputSchema first (400 with their paths); the call uses the transport the
 * server spoke at the last listing and the toolset's timeout. A tool's own error is a result
 * (`isError: true`, 200); failing to reach the server is a 422.
 */
@Injectable()
export class CallTool {
  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly targets: ToolsetTargets,
  ) {}

  async execute(id: string, toolName: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolCallView> {
    const found = await this.toolsets.findWithConnection(id);
    if (!found) throw new NotFoundError('Toolset', id);
    const tool = found.toolset.tools.find((candidate) => candidate.name === toolName);
    if (!tool) throw new NotFoundError('Tool', `"${toolName}" in toolset ${id}`);
    if (!tool.usable) throw new ApiError('TOOL_UNUSABLE', `Tool "${toolName}" is unusable: ${tool.unusableReason ?? 'no reason given'}`);
    const check = validateArguments(tool.inputSchema, args);
    if (!check.ok) throw invalidArguments(check.errors, `Invalid arguments for tool "${toolName}"`);

    const { connection } = found;
    const target = targetOrRefusal(this.targets, connectionSpecOf(connection));
    const started = Date.now();
    try {
      const mcp = await connectMcp(target, { signal });
      try {
        const result = await mcp.callTool(toolName, args, { signal, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema });
        return { tool: toolName, ...result, transport: connection.resolvedTransport, durationMs: Date.now() - started };
      } finally {
        await mcp.close();
      }
    } catch (error) {
      throw connectionFailure(error, connectionSecrets(connection), '');
    }
  }
}
