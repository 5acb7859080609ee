import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import {
  ConfigModule,
  LlmModule,
  NodeRegistryModule,
  PersistenceModule,
  RunQueueProducer,
  ToolsetStoreModule,
  WorkflowStoreModule,
  type AppConfig,
} from '#workflow/nest';
import { RunProcessor } from './processors/run.processor.js';
import { RunRetention } from './retention/run-retention.js';
import { ActiveRuns } from './runs/active-runs.js';
import { CancelListener } from './runs/cancel-listener.js';
import { RunEventsPublisher } from './runs/run-events-publisher.js';
import { RunExecutor } from './runs/run-executor.js';
import { RunPreparer } from './runs/run-preparation.js';
import { RunSessions } from './runs/run-sessions.js';
import { RunSweeper } from './runs/run-sweeper.js';
import { RunWorker } from './runs/run-worker.js';
import { SharedStdioServers } from './runs/shared-stdio-servers.js';
import { ToolsetHealthSchedule } from './toolsets/toolset-health-schedule.js';
import { ToolsetRefreshWorker } from './toolsets/toolset-refresh-worker.js';

/** The worker: no HTTP server; BullMQ consumers wired to the engine (processors/). */
@Module({})
export class WorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: WorkerModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({ pinoHttp: { level: config.logLevel } }),
        PersistenceModule.forRoot(config.mongoUrl),
        NodeRegistryModule,
        WorkflowStoreModule,
        ToolsetStoreModule,
        // The model client for llm/agent nodes, handed to them as ENGINE_EXTRAS.
        LlmModule,
      ],
      providers: [
        ActiveRuns,
        RunEventsPublisher,
        CancelListener,
        RunSessions,
        SharedStdioServers,
        RunPreparer,
        RunExecutor,
        RunProcessor,
        RunWorker,
        RunQueueProducer,
        RunSweeper,
        ToolsetHealthSchedule,
        ToolsetRefreshWorker,
        RunRetention,
      ],
    };
  }
}
