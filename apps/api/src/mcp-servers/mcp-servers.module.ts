import { Module } from '@nestjs/common';
import { WorkflowStoreModule } from '#workflow/nest';
import { CreateMcpServer } from './create-mcp-server.js';
import { DeleteMcpServer } from './delete-mcp-server.js';
import { FindMcpServers } from './find-mcp-servers.js';
import { McpServersController } from './mcp-servers.controller.js';
import { PublishedToolNames } from './published-tool-names.js';
import { ToolListChanges } from './tool-list-changes.js';
import { UpdateMcpServer } from './update-mcp-server.js';

/** Published MCP servers as a REST resource, and the cross-process "tools changed" signal. */
@Module({
  imports: [WorkflowStoreModule],
  controllers: [McpServersController],
  providers: [PublishedToolNames, CreateMcpServer, FindMcpServers, UpdateMcpServer, DeleteMcpServer, ToolListChanges],
  exports: [ToolListChanges],
})
export class McpServersModule {}
