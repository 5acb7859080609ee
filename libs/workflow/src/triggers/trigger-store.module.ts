import { Module } from '@nestjs/common';
import { ScheduleQueue } from './schedule-queue.js';
import { ScheduleRepository } from '../persistence/schedule.repository.js';
import { TriggerRunsRepository } from '../persistence/trigger-runs.repository.js';
import { WebhookRepository } from '../persistence/webhook.repository.js';

/** Schedules and inbound webhooks for the API and the worker (needs PersistenceModule, global, in the app). */
@Module({
  providers: [ScheduleRepository, WebhookRepository, TriggerRunsRepository, ScheduleQueue],
  exports: [ScheduleRepository, WebhookRepository, TriggerRunsRepository, ScheduleQueue],
})
export class TriggerStoreModule {}
