import { Injectable, Logger } from '@nestjs/common';
import { connectMcp, McpErrorCode, validateArguments } from '#mcp';
import {
  Metrics,
  ToolCallRepository,
  ToolsetRefreshRequests,
  ToolsetRepository,
  ToolsetTargets,
  connectionSecrets,
  connectionSpecOf,
  type ToolCallRecord,
} from '#workflow/nest';
import { ApiError, NotFoundError } from '../common/api-errors.js';
import type { ToolCallView } from './dto/toolset-views.js';
import { connectionFailure, invalidArguments } from './toolset-errors.js';
import { refuseStdioUnlessAdmin, type Requester } from './requester.js';
import { targetOrRefusal } from './toolset-listing.js';

/**
 * POST /toolsets/:id/tools/:tool/call: one ad-hoc call, for trying a tool. Arguments are checked
 * against the stored inputSchema first (400 with their paths); the call uses the transport the
 * server spoke at the last listing and the toolset's timeout. A tool's own error is a result
 * (`isError: true`, 200); failing to reach the server is a 422. Every call that reached for the
 * server is recorded for usage (`source: adhoc`; its duration includes connecting, as answered).
 */
@Injectable()
export class CallTool {
  private readonly logger = new Logger(CallTool.name);

  constructor(
    private readonly toolsets: ToolsetRepository,
    private readonly targets: ToolsetTargets,
    private readonly toolCalls: ToolCallRepository,
    private readonly refreshes: ToolsetRefreshRequests,
    private readonly metrics: Metrics,
  ) {}

  /** `requester`: the API key asking (a stdio toolset needs `admin`). */
  async execute(
    id: string,
    toolName: string,
    args: Record<string, unknown>,
    requester: Requester,
    signal?: AbortSignal,
  ): Promise<ToolCallView> {
    const found = await this.toolsets.findWithConnection(id);
    if (!found) throw new NotFoundError('Toolset', id);
    refuseStdioUnlessAdmin(found.connection.kind, requester);
    const tool = found.toolset.tools.find((candidate) => candidate.name === toolName);
    if (!tool) throw new NotFoundError('Tool', `"${toolName}" in toolset ${id}`);
    if (!tool.usable) throw new ApiError('TOOL_UNUSABLE', `Tool "${toolName}" is unusable: ${tool.unusableReason ?? 'no reason given'}`);
    const check = validateArguments(tool.inputSchema, args);
    if (!check.ok) throw invalidArguments(check.errors, `Invalid arguments for tool "${toolName}"`);

    const { connection } = found;
    const target = targetOrRefusal(this.targets, connectionSpecOf(connection), requester);
    const at = new Date();
    const usage = (durationMs: number, errorCode?: string) =>
      this.recordUsage({ toolsetId: id, tool: toolName, at, durationMs, source: 'adhoc', ...(errorCode && { errorCode }) });
    try {
      const mcp = await connectMcp(target, { signal, onToolsListChanged: () => this.refreshes.request(id) });
      try {
        const result = await mcp.callTool(toolName, args, { signal, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema });
        const durationMs = Date.now() - at.getTime();
        await usage(durationMs, result.isError ? McpErrorCode.TOOL_ERROR : undefined);
        return { tool: toolName, ...result, transport: connection.resolvedTransport, durationMs };
      } finally {
        await mcp.close();
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'MCP_INPUT_INVALID') await usage(Date.now() - at.getTime(), typeof code === 'string' ? code : 'MCP_ERROR');
      throw connectionFailure(error, connectionSecrets(connection), '');
    }
  }

  /** Usage is a by-product: failing to record it never fails the call. */
  private async recordUsage(call: ToolCallRecord): Promise<void> {
    this.metrics.mcpCall(call, 'adhoc');
    await this.toolCalls
      .record(call)
      .catch((error: unknown) => this.logger.warn({ err: error, toolsetId: call.toolsetId }, 'tool call not recorded for usage'));
  }
}
