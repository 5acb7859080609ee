import { z } from 'zod';
import { pageOf, type RouteDescription } from '../common/api-route.js';
import { createWebhookBody } from './dto/webhook-requests.js';
import { createdWebhookSchema, deliveryAnswerSchema, webhookSchema } from './dto/webhook-responses.js';

const workflowParams = z.object({ id: z.string().meta({ description: 'The workflow id' }) });
const webhookParams = workflowParams.extend({ webhookId: z.string().meta({ description: 'The webhook id (wh_…)' }) });

/** How the webhook routes describe themselves in the OpenAPI document. */
export const webhookRoutes = {
  create: {
    summary: 'Create an inbound webhook that starts the workflow (its secret shown only here)',
    tags: ['webhooks'],
    params: workflowParams,
    body: createWebhookBody,
    responses: { 201: createdWebhookSchema },
    errors: { 400: ['VALIDATION_FAILED'], 404: ['NOT_FOUND'] },
  },
  list: {
    summary: "The workflow's inbound webhooks, newest first (secrets never shown)",
    tags: ['webhooks'],
    params: workflowParams,
    responses: { 200: pageOf(webhookSchema) },
    errors: { 404: ['NOT_FOUND'] },
  },
  get: {
    summary: 'An inbound webhook and its last runs',
    tags: ['webhooks'],
    params: webhookParams,
    responses: { 200: webhookSchema },
    errors: { 404: ['NOT_FOUND'] },
  },
  remove: {
    summary: 'Delete an inbound webhook (its URL answers 404 from then on)',
    tags: ['webhooks'],
    params: webhookParams,
    responses: { 204: { description: 'Deleted' } },
    errors: { 404: ['NOT_FOUND'] },
  },
  deliver: {
    summary: 'A delivery: starts one run of the workflow (no API key: signed like GitHub, Stripe or Slack sign, or a token)',
    description:
      'The signature is checked over the raw body. A redelivery (same delivery id) starts no second run: it answers the first one. `respond: outputs` hooks answer 200 with the outputs once the run ended (202 if it has not within HOOK_WAIT_MS).',
    tags: ['webhooks'],
    public: true,
    params: z.object({ webhookId: z.string().meta({ description: 'The webhook id (wh_…)' }) }),
    body: z.unknown().meta({ description: 'Any body (JSON, form, text), at most HOOK_BODY_LIMIT_BYTES' }),
    responses: { 200: deliveryAnswerSchema, 202: deliveryAnswerSchema },
    errors: {
      400: ['VALIDATION_FAILED', 'HOOK_BODY_INVALID'],
      401: ['HOOK_SIGNATURE_MISSING', 'HOOK_SIGNATURE_INVALID', 'HOOK_TIMESTAMP_EXPIRED'],
      404: ['NOT_FOUND'],
      409: ['IDEMPOTENCY_KEY_REUSED'],
      413: ['BODY_TOO_LARGE'],
      429: ['RATE_LIMITED'],
    },
  },
} satisfies Record<string, RouteDescription>;
