import { Module } from '@nestjs/common';
import { CANCEL_SIGNALS, RunCancellation, RunQueueProducer, WorkflowStoreModule } from '#workflow/nest';
import { ReferenceGrants } from '../workflows/reference-grants.js';
import { AnswerRunInput } from './answer-run-input.js';
import { ApiCancelSignals } from './api-cancel-signals.js';
import { CancelRun } from './cancel-run.js';
import { DeleteRun } from './delete-run.js';
import { FindRuns } from './find-runs.js';
import { ReplayRun } from './replay-run.js';
import { ResumeAuthorizedRun } from './resume-authorized-run.js';
import { RetryRun } from './retry-run.js';
import { RunAdmission } from './run-admission.js';
import { RunEventsHub } from './run-events-hub.js';
import { RunWaiter } from './run-waiter.js';
import { RunsController } from './runs.controller.js';
import { StartRun } from './start-run.js';
import { StreamRunEvents } from './stream-run-events.js';

@Module({
  imports: [WorkflowStoreModule],
  controllers: [RunsController],
  providers: [
    RunQueueProducer,
    ReferenceGrants,
    RunEventsHub,
    RunWaiter,
    RunAdmission,
    StartRun,
    RetryRun,
    ReplayRun,
    FindRuns,
    { provide: CANCEL_SIGNALS, useClass: ApiCancelSignals },
    RunCancellation,
    CancelRun,
    StreamRunEvents,
    DeleteRun,
    AnswerRunInput,
    ResumeAuthorizedRun,
  ],
  exports: [RunAdmission, CancelRun, ReferenceGrants, ResumeAuthorizedRun, AnswerRunInput, RunWaiter],
})
export class RunsModule {}
