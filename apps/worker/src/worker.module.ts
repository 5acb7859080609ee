import { DynamicModule, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import {
  ConfigModule,
  LlmModule,
  CANCEL_SIGNALS,
  MetricsModule,
  NodeRegistryModule,
  PersistenceModule,
  RunCancellation,
  RunQueueProducer,
  ToolsetStoreModule,
  TriggerStoreModule,
  WorkflowStoreModule,
  type AppConfig,
} from '#workflow/nest';
import { WorkerMetrics } from './metrics/worker-metrics.js';
import { RunProcessor } from './processors/run.processor.js';
import { RunRetention } from './retention/run-retention.js';
import { ActiveRuns } from './runs/active-runs.js';
import { CancelListener } from './runs/cancel-listener.js';
import { RunEventsPublisher } from './runs/run-events-publisher.js';
import { ChildRunStarter } from './runs/child-runs.js';
import { RunExecutor } from './runs/run-executor.js';
import { RunPreparer } from './runs/run-preparation.js';
import { UsageRecords } from './runs/usage-records.js';
import { RunSessions } from './runs/run-sessions.js';
import { RunSweeper } from './runs/run-sweeper.js';
import { WorkerCancelSignals } from './runs/worker-cancel-signals.js';
import { RunWorker } from './processors/run-worker.js';
import { ScheduleFiring } from './schedules/schedule-firing.js';
import { ScheduleReconciler } from './schedules/schedule-reconciler.js';
import { ScheduleWorker } from './schedules/schedule-worker.js';
import { SharedStdioServers } from './runs/shared-stdio-servers.js';
import { ToolsetHealthSchedule } from './toolsets/toolset-health-schedule.js';
import { ToolsetRefreshWorker } from './toolsets/toolset-refresh-worker.js';

/** The worker: BullMQ consumers wired to the engine (processors/); its only HTTP is GET /metrics (metrics/). */
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
        TriggerStoreModule,
        // The model client for llm/agent nodes, handed to them as ENGINE_EXTRAS.
        LlmModule,
        MetricsModule,
      ],
      providers: [
        ActiveRuns,
        RunEventsPublisher,
        CancelListener,
        RunSessions,
        SharedStdioServers,
        UsageRecords,
        RunPreparer,
        RunExecutor,
        ChildRunStarter,
        { provide: CANCEL_SIGNALS, useClass: WorkerCancelSignals },
        RunCancellation,
        RunProcessor,
        RunWorker,
        RunQueueProducer,
        RunSweeper,
        ToolsetHealthSchedule,
        ToolsetRefreshWorker,
        RunRetention,
        WorkerMetrics,
        ScheduleFiring,
        ScheduleReconciler,
        ScheduleWorker,
      ],
    };
  }
}
