import { Module } from '@nestjs/common';
import { LlmModule, ToolsetStoreModule, TriggerStoreModule, WorkflowStoreModule } from '#workflow/nest';
import { McpServersModule } from '../mcp-servers/mcp-servers.module.js';
import { CheckWorkflow } from './check-workflow.js';
import { CreateWorkflow } from './create-workflow.js';
import { DeleteWorkflow } from './delete-workflow.js';
import { FindWorkflows } from './find-workflows.js';
import { ReferenceGrants } from './reference-grants.js';
import { UpdateWorkflow } from './update-workflow.js';
import { WorkflowChecker } from './workflow-checker.js';
import { WorkflowSealing } from './workflow-sealing.js';
import { WorkflowsController } from './workflows.controller.js';

@Module({
  imports: [WorkflowStoreModule, ToolsetStoreModule, TriggerStoreModule, LlmModule, McpServersModule],
  controllers: [WorkflowsController],
  providers: [
    WorkflowChecker,
    WorkflowSealing,
    ReferenceGrants,
    CreateWorkflow,
    CheckWorkflow,
    FindWorkflows,
    UpdateWorkflow,
    DeleteWorkflow,
  ],
  exports: [WorkflowChecker, ReferenceGrants],
})
export class WorkflowsModule {}
