import { z } from 'zod';
import { RUN_STATUSES } from '#workflow';
import { HOOK_RESPONSES, HOOK_VERIFICATIONS, type TriggeredRunSummary, type WebhookRecord } from '#workflow/nest';
import { toTriggeredRunView, triggeredRunSchema } from '../../schedules/dto/schedule-responses.js';

const iso = z.string().meta({ format: 'date-time' });

export const webhookSchema = z
  .object({
    id: z.string(),
    workflowId: z.string(),
    url: z.string().meta({ description: 'Where the sender posts (no API key: the signature is the credential)' }),
    verify: z.enum(HOOK_VERIFICATIONS),
    inputs: z.record(z.string(), z.string()).nullable(),
    respond: z.enum(HOOK_RESPONSES),
    recentRuns: z.array(triggeredRunSchema),
    createdAt: iso,
  })
  .meta({ id: 'Webhook' });

export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: 'The signing secret: shown here only, stored sealed' }) })
  .meta({ id: 'CreatedWebhook' });

/** What `POST /hooks/:id` answers: the run started (or the one a redelivery already started), its outputs once ended. */
export const deliveryAnswerSchema = z
  .object({
    runId: z.string(),
    status: z.enum(RUN_STATUSES),
    outputs: z.record(z.string(), z.unknown()).nullable().optional(),
    error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  })
  .meta({ id: 'HookDelivery' });

export function toWebhookView(hook: WebhookRecord, baseUrl: string, recent: TriggeredRunSummary[]) {
  return {
    id: hook.id,
    workflowId: hook.workflowId,
    url: `${baseUrl}/hooks/${hook.id}`,
    verify: hook.verify,
    inputs: hook.inputs ?? null,
    respond: hook.respond,
    recentRuns: recent.map(toTriggeredRunView),
    createdAt: hook.createdAt.toISOString(),
  };
}
