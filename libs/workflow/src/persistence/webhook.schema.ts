import { Schema } from 'mongoose';
import { HOOK_RESPONSES, HOOK_VERIFICATIONS, type HookResponse, type HookVerification } from './trigger-vocabulary.js';

export const WEBHOOK_MODEL = 'Webhook';

/**
 * An inbound webhook: `POST /hooks/<_id>` starts a run of `workflowId` when the delivery proves
 * its sender (`verify` with `secret`). The id is random (it is the URL), not an ObjectId.
 */
export interface WebhookDoc {
  _id: string;
  workflowId: string;
  verify: HookVerification;
  /** Sealed (SecretBox); opened only to check a delivery. */
  secret: string;
  /** JSON text: input name → where its value is in the delivery (`body.issue.title`, `headers.x-github-event`); absent = the body. */
  inputs?: string;
  respond: HookResponse;
  createdAt: Date;
  updatedAt: Date;
}

export const WebhookSchema = new Schema<WebhookDoc>(
  {
    _id: { type: String, required: true },
    workflowId: { type: String, required: true },
    verify: { type: String, enum: HOOK_VERIFICATIONS, required: true },
    secret: { type: String, required: true },
    inputs: { type: String },
    respond: { type: String, enum: HOOK_RESPONSES, required: true },
  },
  { collection: 'webhooks', timestamps: true, versionKey: false },
);
WebhookSchema.index({ workflowId: 1, createdAt: -1 });
