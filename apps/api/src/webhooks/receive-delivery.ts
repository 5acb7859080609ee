import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import {
  APP_CONFIG,
  Metrics,
  SECRET_BOX,
  splitSecretInputs,
  WebhookRepository,
  WorkflowRepository,
  type AppConfig,
  type HookRefusal,
  type SecretBox,
} from '#workflow/nest';
import { ApiError, InvalidRequestError, NotFoundError } from '../common/api-errors.js';
import type { ApiErrorCode } from '../common/error-codes.js';
import { RunAdmission } from '../runs/run-admission.js';
import { isTerminal } from '../runs/run-waiter.js';
import { runInputProblems, withDefaults } from '../runs/run-inputs.js';
import { LiveWorkflows } from '../workflows/live-workflows.js';
import { inputsOf, parseBody } from './delivery-inputs.js';
import { HookRateLimit } from './hook-rate-limit.js';
import { checkDelivery, deliveryIdOf, type Delivery } from './signatures.js';

const CODE_OF: Record<'signature_missing' | 'signature_invalid' | 'timestamp_expired', ApiErrorCode> = {
  signature_missing: 'HOOK_SIGNATURE_MISSING',
  signature_invalid: 'HOOK_SIGNATURE_INVALID',
  timestamp_expired: 'HOOK_TIMESTAMP_EXPIRED',
};

export interface DeliveryAnswer {
  statusCode: 200 | 202;
  replayed: boolean;
  body: { runId: string; status: string; outputs?: Record<string, unknown> | null; error?: { code: string; message: string } | null };
}

/**
 * `POST /hooks/:webhookId`, in order: the hook exists, it has deliveries left this minute, the
 * delivery proves its sender (signature over the raw bytes, then the timestamp), its body parses,
 * the mapped inputs fit the latest version's `inputSchema`. Then the run is accepted like a REST
 * run (RunAdmission), its idempotency key the delivery id, so a redelivery answers the run the
 * first delivery started. Every refusal is counted by reason and starts nothing.
 */
@Injectable()
export class ReceiveDelivery {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    private readonly hooks: WebhookRepository,
    private readonly workflows: WorkflowRepository,
    private readonly live: LiveWorkflows,
    private readonly admission: RunAdmission,
    private readonly rateLimit: HookRateLimit,
    private readonly metrics: Metrics,
  ) {}

  async execute(webhookId: string, delivery: Delivery & { contentType?: string }, res: Response): Promise<DeliveryAnswer> {
    const hook = await this.hooks.findById(webhookId);
    const workflow = hook && (await this.live.find(hook.workflowId));
    if (!hook || !workflow) throw this.refuse('unknown_hook', new NotFoundError('Webhook', webhookId));
    const retryAfter = await this.rateLimit.consume(hook.id);
    if (retryAfter) {
      res.setHeader('Retry-After', String(retryAfter));
      throw this.refuse('rate_limited', new ApiError('RATE_LIMITED', 'Too many deliveries for this webhook'));
    }
    const verdict = checkDelivery(hook.verify, this.box.open(hook.sealedSecret), delivery, {
      toleranceSeconds: this.config.triggers.hookToleranceSeconds,
    });
    if (!verdict.ok)
      throw this.refuse(
        verdict.refusal,
        new ApiError(CODE_OF[verdict.refusal], `The delivery is refused: ${verdict.refusal.replace('_', ' ')}`),
      );
    const parsed = parseBody(delivery.raw, delivery.contentType);
    if (!parsed) throw this.refuse('body_invalid', new ApiError('HOOK_BODY_INVALID', 'The delivery body is not valid JSON'));

    const version = await this.workflows.findVersion(hook.workflowId, workflow.latestVersion);
    if (!version) throw this.refuse('unknown_hook', new NotFoundError('Webhook', webhookId));
    const schema = version.definition.inputSchema;
    const inputs = withDefaults(schema, inputsOf(hook.inputs, parsed.value, delivery.headers));
    const problems = runInputProblems(schema, inputs);
    if (problems.length > 0)
      throw this.refuse('inputs_invalid', new InvalidRequestError(problems, 'The delivery does not give the inputs the workflow needs'));
    const { shown, secrets } = splitSecretInputs(schema, inputs);
    const deliveryId = deliveryIdOf(hook.verify, delivery, parsed.value);
    const waitMs = hook.respond === 'outputs' ? this.config.triggers.hookWaitMs : 0;
    const started = await this.admission.accept(
      {
        workflowId: hook.workflowId,
        version: version.version,
        inputs: shown,
        ...(Object.keys(secrets).length > 0 && { secretInputs: this.box.seal(JSON.stringify(secrets)) }),
        requestHash: createHash('sha256').update(delivery.raw).digest('hex'),
        trigger: { source: 'webhook', webhookId: hook.id, ...(deliveryId && { deliveryId }) },
      },
      { ...(deliveryId && { idempotencyKey: `hook:${hook.id}:${deliveryId}` }), waitMs },
    );
    this.metrics.hookDelivered(hook.verify, !started.replayed);
    const { run } = started;
    if (hook.respond === 'accepted') return { statusCode: 202, replayed: started.replayed, body: { runId: run.id, status: run.status } };
    const ended = isTerminal(run);
    return {
      statusCode: ended ? 200 : 202,
      replayed: started.replayed,
      body: {
        runId: run.id,
        status: run.status,
        outputs: run.outputs,
        error: run.error && { code: run.error.code, message: run.error.message },
      },
    };
  }

  private refuse(reason: HookRefusal, error: ApiError): ApiError {
    this.metrics.hookRefused(reason);
    return error;
  }
}
