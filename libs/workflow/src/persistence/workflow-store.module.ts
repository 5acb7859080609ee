import { Module } from '@nestjs/common';
import { ChildRunRepository } from './child-run.repository.js';
import { McpServerRepository } from './mcp-server.repository.js';
import { NodeExecutionRepository } from './node-execution.repository.js';
import { RunHistoryRepository } from './run-history.repository.js';
import { RunJournals } from './run-journal.js';
import { RunSessionRepository } from './run-session.repository.js';
import { RunRepository } from './run.repository.js';
import { WorkflowRepository } from './workflow.repository.js';

const STORE = [
  WorkflowRepository,
  RunRepository,
  RunSessionRepository,
  NodeExecutionRepository,
  RunJournals,
  McpServerRepository,
  RunHistoryRepository,
  ChildRunRepository,
];

/**
 * Workflows, runs (and their recorded MCP sessions) and node executions for the API and the worker. Needs PersistenceModule
 * (global) in the importing app.
 */
@Module({
  providers: STORE,
  exports: STORE,
})
export class WorkflowStoreModule {}
