import { Module } from '@nestjs/common';
import { McpServerRepository } from './mcp-server.repository.js';
import { NodeExecutionRepository } from './node-execution.repository.js';
import { RunHistoryRepository } from './run-history.repository.js';
import { RunSessionRepository } from './run-session.repository.js';
import { RunRepository } from './run.repository.js';
import { WorkflowRepository } from './workflow.repository.js';

/**
 * Workflows, runs (and their recorded MCP sessions) and node executions for the API and the worker. Needs PersistenceModule
 * (global) in the importing app.
 */
@Module({
  providers: [WorkflowRepository, RunRepository, RunSessionRepository, NodeExecutionRepository, McpServerRepository, RunHistoryRepository],
  exports: [WorkflowRepository, RunRepository, RunSessionRepository, NodeExecutionRepository, McpServerRepository, RunHistoryRepository],
})
export class WorkflowStoreModule {}
