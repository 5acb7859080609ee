import { Module } from '@nestjs/common';
import { RunQueueProducer, WorkflowStoreModule } from '#workflow';
import { CancelRunService } from './cancel-run.service.js';
import { DeleteRunService } from './delete-run.service.js';
import { RunEventsHub } from './run-events-hub.js';
import { RunEventsService } from './run-events.service.js';
import { RunWaiter } from './run-waiter.js';
import { RunsController } from './runs.controller.js';
import { RunsQueryService } from './runs-query.service.js';
import { StartRunService } from './start-run.service.js';

@Module({
  imports: [WorkflowStoreModule],
  controllers: [RunsController],
  providers: [RunQueueProducer, RunEventsHub, RunWaiter, StartRunService, RunsQueryService, CancelRunService, RunEventsService, DeleteRunService],
})
export class RunsModule {}
