import { z } from 'zod';
import { HOOK_RESPONSES, HOOK_VERIFICATIONS } from '#workflow/nest';
import { INPUT_PATH } from '../delivery-inputs.js';

/** Request bodies of /workflows/:id/webhooks (strict: unknown fields are rejected with their path). */
export const createWebhookBody = z.strictObject({
  verify: z.enum(HOOK_VERIFICATIONS).meta({
    description:
      'github (X-Hub-Signature-256), stripe (Stripe-Signature), slack (X-Slack-Signature + timestamp) or token (X-Webhook-Token)',
  }),
  secret: z
    .string()
    .min(8)
    .max(512)
    .optional()
    .meta({ description: "The signing secret (Stripe's and Slack's are theirs: pass them); generated when absent; shown only in the 201" }),
  inputs: z
    .record(z.string(), z.string().regex(INPUT_PATH, 'a path: body, body.<field>[.<field>…] or headers.<lower-case name>'))
    .optional()
    .meta({
      description:
        'Run input → where it is in the delivery (`{"title": "body.issue.title", "event": "headers.x-github-event"}`); absent: the body is the inputs',
    }),
  respond: z.enum(HOOK_RESPONSES).default('accepted').meta({
    description: 'accepted: 202 with the run id at once; outputs: 200 with the run outputs once it ends (bounded by HOOK_WAIT_MS)',
  }),
});
export type CreateWebhookBody = z.output<typeof createWebhookBody>;
