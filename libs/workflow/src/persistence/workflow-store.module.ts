import { Module } from '@nestjs/common';
import { NodeExecutionRepository } from './node-execution.repository.js';
import { RunRepository } from './run.repository.js';
import { WorkflowRepository } from './workflow.repository.js';

/**
 * Workflows, runs and node executions for the API and the worker. Needs PersistenceModule
 * (global) in the importing app.
 */
@Module({
  providers: [WorkflowRepository, RunRepository, NodeExecutionRepository],
  exports: [WorkflowRepository, RunRepository, NodeExecutionRepository],
})
export class WorkflowStoreModule {}
