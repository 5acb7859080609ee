import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import type { Request } from 'express';
import { APP_CONFIG, type AppConfig } from '#workflow/nest';
import { RequireScope, WorkflowScoped } from '../api-keys/access.decorators.js';
import { ZodPipe } from '../common/zod-validation.js';
import { publicBaseUrl } from '../mcp-servers/public-base-url.js';
import { ApiRoute } from '../common/api-route.js';
import { createWebhookBody, type CreateWebhookBody } from './dto/webhook-requests.js';
import { Webhooks } from './webhooks.service.js';
import { webhookRoutes } from './webhooks.routes.js';

/** Inbound webhooks of a workflow: creating and deleting them needs `write` (and the workflow in a limited key's grant). */
@Controller('workflows/:id/webhooks')
export class WebhooksController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly webhooks: Webhooks,
  ) {}

  @Post()
  @ApiRoute(webhookRoutes.create)
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  create(@Param('id') workflowId: string, @Body(new ZodPipe(createWebhookBody)) body: CreateWebhookBody, @Req() req: Request) {
    return this.webhooks.create(workflowId, body, publicBaseUrl(this.config, req));
  }

  @Get()
  @ApiRoute(webhookRoutes.list)
  @RequireScope('read', 'write')
  @WorkflowScoped({ workflowParam: 'id' })
  list(@Param('id') workflowId: string, @Req() req: Request) {
    return this.webhooks.list(workflowId, publicBaseUrl(this.config, req));
  }

  @Get(':webhookId')
  @ApiRoute(webhookRoutes.get)
  @RequireScope('read', 'write')
  @WorkflowScoped({ workflowParam: 'id' })
  get(@Param('id') workflowId: string, @Param('webhookId') webhookId: string, @Req() req: Request) {
    return this.webhooks.get(workflowId, webhookId, publicBaseUrl(this.config, req));
  }

  @Delete(':webhookId')
  @RequireScope('write')
  @WorkflowScoped({ workflowParam: 'id' })
  @HttpCode(204)
  @ApiRoute(webhookRoutes.remove)
  async remove(@Param('id') workflowId: string, @Param('webhookId') webhookId: string): Promise<void> {
    await this.webhooks.delete(workflowId, webhookId);
  }
}
