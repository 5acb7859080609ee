import { Global, Module } from '@nestjs/common';
import { WorkflowStoreModule } from '#workflow/nest';
import { LiveWorkflows } from './live-workflows.js';

/** Global: one copy of the live workflows per process, for every feature that starts runs or changes workflows. */
@Global()
@Module({ imports: [WorkflowStoreModule], providers: [LiveWorkflows], exports: [LiveWorkflows] })
export class LiveWorkflowsModule {}
