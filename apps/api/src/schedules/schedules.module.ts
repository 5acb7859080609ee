import { Module } from '@nestjs/common';
import { TriggerStoreModule, WorkflowStoreModule } from '#workflow/nest';
import { ScheduleDrafts } from './schedule-drafts.js';
import { SchedulesController } from './schedules.controller.js';
import { Schedules } from './schedules.service.js';

/** Workflows started by time (BullMQ job schedulers; the workers take the firings). */
@Module({
  imports: [WorkflowStoreModule, TriggerStoreModule],
  controllers: [SchedulesController],
  providers: [ScheduleDrafts, Schedules],
})
export class SchedulesModule {}
