import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  SECRET_BOX,
  TriggerRunsRepository,
  WebhookRepository,
  WorkflowRepository,
  type SecretBox,
  type WebhookRecord,
} from '#workflow/nest';
import { NotFoundError } from '../common/api-errors.js';
import { RECENT_RUNS } from '../schedules/dto/schedule-responses.js';
import type { CreateWebhookBody } from './dto/webhook-requests.js';
import { toWebhookView } from './dto/webhook-responses.js';

/** A generated signing secret: 32 random bytes (`whsec_` + 43 base64url characters). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** `/workflows/:id/webhooks`: the secret sealed at rest and shown once, in the 201. */
@Injectable()
export class Webhooks {
  private readonly logger = new Logger(Webhooks.name);

  constructor(
    private readonly hooks: WebhookRepository,
    private readonly workflows: WorkflowRepository,
    private readonly runs: TriggerRunsRepository,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
  ) {}

  async create(workflowId: string, body: CreateWebhookBody, baseUrl: string) {
    if (!(await this.workflows.findLive(workflowId))) throw new NotFoundError('Workflow', workflowId);
    const secret = body.secret ?? newSecret();
    const hook = await this.hooks.create({
      workflowId,
      verify: body.verify,
      sealedSecret: this.box.seal(secret),
      ...(body.inputs && { inputs: body.inputs }),
      respond: body.respond,
    });
    this.logger.log({ webhookId: hook.id, workflowId, verify: hook.verify }, 'webhook created');
    return { ...toWebhookView(hook, baseUrl, []), secret };
  }

  async list(workflowId: string, baseUrl: string) {
    const hooks = await this.hooks.ofWorkflow(workflowId);
    return { items: await Promise.all(hooks.map((hook) => this.view(hook, baseUrl))), nextCursor: null };
  }

  async get(workflowId: string, webhookId: string, baseUrl: string) {
    return this.view(await this.find(workflowId, webhookId), baseUrl);
  }

  async delete(workflowId: string, webhookId: string): Promise<void> {
    await this.find(workflowId, webhookId);
    await this.hooks.delete(webhookId);
  }

  private async find(workflowId: string, webhookId: string): Promise<WebhookRecord> {
    const hook = await this.hooks.findById(webhookId);
    if (!hook || hook.workflowId !== workflowId) throw new NotFoundError('Webhook', webhookId);
    return hook;
  }

  private async view(hook: WebhookRecord, baseUrl: string) {
    return toWebhookView(hook, baseUrl, await this.runs.recent({ webhookId: hook.id }, RECENT_RUNS));
  }
}
