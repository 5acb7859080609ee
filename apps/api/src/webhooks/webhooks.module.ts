import { Module } from '@nestjs/common';
import { TriggerStoreModule, WorkflowStoreModule } from '#workflow/nest';
import { RunsModule } from '../runs/runs.module.js';
import { HookRateLimit } from './hook-rate-limit.js';
import { HooksController } from './hooks.controller.js';
import { ReceiveDelivery } from './receive-delivery.js';
import { WebhooksController } from './webhooks.controller.js';
import { Webhooks } from './webhooks.service.js';

/** Inbound webhooks: managed under a workflow, delivered to /hooks/:id, each delivery a run accepted like a REST one. */
@Module({
  imports: [WorkflowStoreModule, TriggerStoreModule, RunsModule],
  controllers: [WebhooksController, HooksController],
  providers: [Webhooks, ReceiveDelivery, HookRateLimit],
})
export class WebhooksModule {}
