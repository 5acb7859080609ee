import { Module } from '@nestjs/common';
import { LlmModule, ToolsetStoreModule, WorkflowStoreModule } from '#workflow';
import { McpServersModule } from '../mcp-servers/mcp-servers.module.js';
import { WorkflowChecker } from './workflow-checker.js';
import { WorkflowsController } from './workflows.controller.js';
import { WorkflowsService } from './workflows.service.js';

@Module({
  imports: [WorkflowStoreModule, ToolsetStoreModule, LlmModule, McpServersModule],
  controllers: [WorkflowsController],
  providers: [WorkflowsService, WorkflowChecker],
  exports: [WorkflowChecker],
})
export class WorkflowsModule {}
